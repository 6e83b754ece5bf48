// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import { L1Block } from "./L1Block.sol";

/// @title GasPriceOracle (keel, Jovian level)
/// @notice The fee oracle predeploy at 0x420000000000000000000000000000000000000F, written for keel from the
///         OP Stack specs: predeploys.md "GasPriceOracle", exec-engine.md "L1-Cost fees" (Bedrock, Ecotone),
///         fjord/predeploys.md and fjord/exec-engine.md (FastLZ estimator, getL1FeeUpperBound,
///         getL1GasUsed), isthmus/exec-engine.md "Operator Fee" (getOperatorFee), jovian/exec-engine.md
///         "Operator Fee" (the x100 formula), jovian/derivation.md "GasPriceOracle Enable Jovian" (setJovian)
///         and specs/experimental/contracts/L2/gas-price-oracle.md (setEcotone / setFjord / setIsthmus /
///         setJovian rules). Jovian changes nothing in the L1 data fee: getL1Fee, getL1GasUsed and
///         getL1FeeUpperBound keep their Fjord formulas.
/// @dev Storage: slot 0 holds isEcotone (offset 0), isFjord (offset 1), isIsthmus (offset 2), isJovian
///      (offset 3), as the deployed contracts do; the fork flags are set once each, in order, by the depositor
///      account.
contract GasPriceOracle {
    /// @notice Decimals of the fee scalars.
    uint256 public constant DECIMALS = 6;

    /// @notice The L1 attributes depositor account: the only caller of the fork setters.
    address internal constant DEPOSITOR_ACCOUNT = 0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001;

    /// @notice The L1Block predeploy the fee parameters are read from.
    L1Block internal constant L1_BLOCK = L1Block(0x4200000000000000000000000000000000000015);

    /// @notice Fjord linear regression (fjord/exec-engine.md): intercept and FastLZ coefficient, scaled
    ///         by 1e6, and the minimum transaction size in bytes.
    int256 internal constant COST_INTERCEPT = -42_585_600;
    uint256 internal constant COST_FASTLZ_COEF = 836_500;
    uint256 internal constant MIN_TRANSACTION_SIZE = 100;

    /// @notice The signature bytes an unsigned transaction lacks (the L1 fee prices the signed one).
    uint256 internal constant SIGNATURE_BYTES = 68;

    bool public isEcotone;
    bool public isFjord;
    bool public isIsthmus;
    bool public isJovian;

    /// @notice Semantic version.
    function version() external pure returns (string memory) {
        return "1.6.0+keel";
    }

    /// @notice Switches the L1 fee to the Ecotone formula (depositor only, once).
    function setEcotone() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "GasPriceOracle: only the depositor account can set isEcotone flag");
        require(isEcotone == false, "GasPriceOracle: Ecotone already active");
        isEcotone = true;
    }

    /// @notice Switches the L1 fee to the Fjord formula (depositor only, once, after Ecotone).
    function setFjord() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "GasPriceOracle: only the depositor account can set isFjord flag");
        require(isEcotone, "GasPriceOracle: Fjord can only be activated after Ecotone");
        require(isFjord == false, "GasPriceOracle: Fjord already active");
        isFjord = true;
    }

    /// @notice Turns the operator fee on (depositor only, once, after Fjord).
    function setIsthmus() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "GasPriceOracle: only the depositor account can set isIsthmus flag");
        require(isFjord, "GasPriceOracle: Isthmus can only be activated after Fjord");
        require(isIsthmus == false, "GasPriceOracle: Isthmus already active");
        isIsthmus = true;
    }

    /// @notice Switches the operator fee to the Jovian formula (depositor only, once, after Isthmus).
    function setJovian() external {
        require(msg.sender == DEPOSITOR_ACCOUNT, "GasPriceOracle: only the depositor account can set isJovian flag");
        require(isIsthmus, "GasPriceOracle: Jovian can only be activated after Isthmus");
        require(isJovian == false, "GasPriceOracle: Jovian already active");
        isJovian = true;
    }

    /// @notice The L2 base fee.
    function gasPrice() external view returns (uint256) {
        return block.basefee;
    }

    /// @notice The L2 base fee.
    function baseFee() external view returns (uint256) {
        return block.basefee;
    }

    /// @notice Pre-Ecotone fee overhead; reverts once Ecotone is active.
    function overhead() external view returns (uint256) {
        require(!isEcotone, "GasPriceOracle: overhead() is deprecated");
        return L1_BLOCK.l1FeeOverhead();
    }

    /// @notice Pre-Ecotone fee scalar; reverts once Ecotone is active.
    function scalar() external view returns (uint256) {
        require(!isEcotone, "GasPriceOracle: scalar() is deprecated");
        return L1_BLOCK.l1FeeScalar();
    }

    /// @notice L1 base fee of the L1 origin.
    function l1BaseFee() public view returns (uint256) {
        return L1_BLOCK.basefee();
    }

    /// @notice L1 blob base fee of the L1 origin.
    function blobBaseFee() public view returns (uint256) {
        return L1_BLOCK.blobBaseFee();
    }

    /// @notice Ecotone base fee scalar.
    function baseFeeScalar() public view returns (uint32) {
        return L1_BLOCK.baseFeeScalar();
    }

    /// @notice Ecotone blob base fee scalar.
    function blobBaseFeeScalar() public view returns (uint32) {
        return L1_BLOCK.blobBaseFeeScalar();
    }

    /// @notice Decimals of the fee scalars.
    function decimals() external pure returns (uint256) {
        return DECIMALS;
    }

    /// @notice The L1 data fee of an unsigned, fully RLP-encoded transaction.
    function getL1Fee(bytes memory _data) external view returns (uint256) {
        if (isFjord) return _fjordL1Cost(_flzCompressLen(_data) + SIGNATURE_BYTES);
        uint256 l1GasUsed = _calldataGas(_data) + SIGNATURE_BYTES * 16;
        if (isEcotone) {
            // exec-engine.md "Ecotone L1-Cost fee changes": calldataGas * (16*baseFee*baseFeeScalar +
            // blobBaseFee*blobBaseFeeScalar) / (16 * 1e6).
            return l1GasUsed * _l1FeeScaled() / (16 * 10 ** DECIMALS);
        }
        // exec-engine.md "Pre-Ecotone": (calldataGas + overhead) * l1BaseFee * scalar / 1e6.
        return (l1GasUsed + L1_BLOCK.l1FeeOverhead()) * l1BaseFee() * L1_BLOCK.l1FeeScalar() / 10 ** DECIMALS;
    }

    /// @notice An upper bound of the Fjord L1 fee for an unsigned transaction of `_unsignedTxSize` bytes
    ///         (fjord/predeploys.md: FastLZ size bounded by `size + size / 255 + 16`).
    function getL1FeeUpperBound(uint256 _unsignedTxSize) external view returns (uint256) {
        require(isFjord, "GasPriceOracle: getL1FeeUpperBound only supports Fjord");
        uint256 txSize = _unsignedTxSize + SIGNATURE_BYTES;
        return _fjordL1Cost(txSize + txSize / 255 + 16);
    }

    /// @notice L1 gas of an unsigned transaction: from Fjord the FastLZ estimate * 16; before it calldata
    ///         gas, plus the overhead before Ecotone (fjord/predeploys.md "L1 Gas Usage Estimation").
    function getL1GasUsed(bytes memory _data) external view returns (uint256) {
        if (isFjord) {
            return _fjordEstimatedSize(_flzCompressLen(_data) + SIGNATURE_BYTES) * 16 / 10 ** DECIMALS;
        }
        uint256 l1GasUsed = _calldataGas(_data) + SIGNATURE_BYTES * 16;
        if (isEcotone) return l1GasUsed;
        return l1GasUsed + L1_BLOCK.l1FeeOverhead();
    }

    /// @notice The operator fee of a transaction that used `_gasUsed` gas: 0 before Isthmus; from Isthmus
    ///         `gasUsed * operatorFeeScalar / 1e6 + operatorFeeConstant`, saturating at 2^256-1
    ///         (isthmus/exec-engine.md "Fee Formula"); from Jovian `gasUsed * operatorFeeScalar * 100 +
    ///         operatorFeeConstant` (jovian/exec-engine.md "Fee Formula Update"), in checked arithmetic: a gas
    ///         value no transaction can use that overflows uint256 reverts (Panic 0x11), as the deployed
    ///         Jovian GasPriceOracle does.
    function getOperatorFee(uint256 _gasUsed) external view returns (uint256) {
        if (!isIsthmus) return 0;
        uint256 feeScalar = L1_BLOCK.operatorFeeScalar();
        uint256 feeConstant = L1_BLOCK.operatorFeeConstant();
        if (isJovian) return _gasUsed * feeScalar * 100 + feeConstant;
        uint256 product;
        unchecked {
            product = _gasUsed * feeScalar;
            if (feeScalar != 0 && product / feeScalar != _gasUsed) product = type(uint256).max;
            uint256 fee = product / 1e6 + feeConstant;
            return fee < feeConstant ? type(uint256).max : fee;
        }
    }

    /// @dev 16 * baseFeeScalar * l1BaseFee + blobBaseFeeScalar * blobBaseFee.
    function _l1FeeScaled() private view returns (uint256) {
        return uint256(baseFeeScalar()) * 16 * l1BaseFee() + uint256(blobBaseFeeScalar()) * blobBaseFee();
    }

    /// @dev Fjord estimated size scaled by 1e6: max(minTransactionSize * 1e6, intercept + coef * fastlzSize).
    function _fjordEstimatedSize(uint256 _fastlzSize) private pure returns (uint256) {
        int256 size = COST_INTERCEPT + int256(COST_FASTLZ_COEF * _fastlzSize);
        int256 floor = int256(MIN_TRANSACTION_SIZE * 10 ** DECIMALS);
        return uint256(size < floor ? floor : size);
    }

    /// @dev fjord/exec-engine.md: estimatedSizeScaled * l1FeeScaled / 1e12.
    function _fjordL1Cost(uint256 _fastlzSize) private view returns (uint256) {
        return _fjordEstimatedSize(_fastlzSize) * _l1FeeScaled() / 10 ** (DECIMALS * 2);
    }

    /// @dev EIP-2028 calldata gas: 4 per zero byte, 16 per non-zero byte.
    function _calldataGas(bytes memory _data) private pure returns (uint256 total) {
        for (uint256 i = 0; i < _data.length; i++) total += _data[i] == 0 ? 4 : 16;
    }

    // ---- FastLZ level 1 output length (fjord/exec-engine.md "FastLZ Implementation": equal to
    // fastlz_compress of ariya/FastLZ). Same algorithm as keel's lib/protocol/fastlz.ts: only the length
    // of the output is counted.

    uint256 internal constant HASH_LOG = 13;
    uint256 internal constant HASH_SIZE = 1 << HASH_LOG;
    uint256 internal constant MAX_DISTANCE = 0x1fff;

    /// @dev Three bytes from `i`, little-endian.
    function _u24(bytes memory _d, uint256 _i) private pure returns (uint256 v) {
        assembly {
            let p := add(add(_d, 32), _i)
            v := or(or(byte(0, mload(p)), shl(8, byte(1, mload(p)))), shl(16, byte(2, mload(p))))
        }
    }

    /// @dev The hash table holds 32-bit positions, 4 bytes per entry (8192 entries in 32 KiB of memory
    ///      rather than 256 KiB of words: memory expansion stays near 5,000 gas instead of 155,000).
    function _tableGet(bytes memory _t, uint256 _h) private pure returns (uint256 v) {
        assembly {
            v := shr(224, mload(add(add(_t, 32), shl(2, _h))))
        }
    }

    function _tableSet(bytes memory _t, uint256 _h, uint256 _v) private pure {
        assembly {
            let p := add(add(_t, 32), shl(2, _h))
            mstore(p, or(and(mload(p), shr(32, not(0))), shl(224, _v)))
        }
    }

    function _hash(uint256 _v) private pure returns (uint256) {
        return ((2654435769 * _v) & 0xffffffff) >> (32 - HASH_LOG);
    }

    /// @dev Bytes for a run of `r` literals: one control byte per up to 32 literals.
    function _literalsLen(uint256 _r) private pure returns (uint256 n) {
        n = 0x21 * (_r / 0x20);
        _r %= 0x20;
        if (_r != 0) n += _r + 1;
    }

    /// @dev Bytes for a match of length `l`: 3 per full 262-byte chunk, then 2 (short) or 3 (long).
    function _matchLen(uint256 _l) private pure returns (uint256) {
        _l--;
        return 3 * (_l / 262) + (_l % 262 >= 6 ? 3 : 2);
    }

    /// @dev Match length of p and q bounded by e, counting the first mismatching byte as the reference does.
    function _cmp(bytes memory _d, uint256 _p, uint256 _q, uint256 _e) private pure returns (uint256 l) {
        _e -= _q;
        for (; l < _e; l++) {
            if (_d[_p + l] != _d[_q + l]) _e = 0;
        }
    }

    function _flzCompressLen(bytes memory _d) internal pure returns (uint256 n) {
        uint256 len = _d.length;
        // 32 spare bytes: _tableSet rewrites a whole word from the entry on.
        bytes memory table = new bytes(HASH_SIZE * 4 + 32);
        uint256 anchor = 0;
        uint256 ipLimit = len < 13 ? 0 : len - 13;
        uint256 ip = 2;
        while (ip < ipLimit) {
            uint256 ref;
            for (;;) {
                uint256 seq = _u24(_d, ip);
                uint256 h = _hash(seq);
                ref = _tableGet(table, h);
                _tableSet(table, h, ip);
                uint256 distance = ip - ref;
                if (ip >= ipLimit) break;
                ip++;
                if (distance <= MAX_DISTANCE && seq == _u24(_d, ref)) break;
            }
            if (ip >= ipLimit) break;
            ip--;
            if (ip > anchor) n += _literalsLen(ip - anchor);
            uint256 l = _cmp(_d, ref + 3, ip + 3, ipLimit + 9);
            n += _matchLen(l);
            ip += l;
            _tableSet(table, _hash(_u24(_d, ip)), ip);
            ip++;
            _tableSet(table, _hash(_u24(_d, ip)), ip);
            ip++;
            anchor = ip;
        }
        n += _literalsLen(len - anchor);
    }
}
