// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title L1Block (keel, Jovian level)
/// @notice The L1 attributes predeploy at 0x4200000000000000000000000000000000000015, written for keel from
///         the OP Stack specs: predeploys.md "L1Block", deposits.md "L1 Attributes Deposited Transaction"
///         (Bedrock `setL1BlockValues`), ecotone/l1-attributes.md (`setL1BlockValuesEcotone`),
///         isthmus/l1-attributes.md (`setL1BlockValuesIsthmus`), isthmus/exec-engine.md (operator fee values),
///         jovian/l1-attributes.md (`setL1BlockValuesJovian`), jovian/exec-engine.md "Scalar loading"
///         (`daFootprintGasScalar`), specs/experimental/contracts/L2/l1-block.md, and the custom gas token
///         getters of the 2024 custom-gas-token spec.
/// @dev The storage layout is the one op-geth reads (core/types/rollup_cost.go) and the one
///      contracts-bedrock 0.17.3 declares: do not reorder the state variables below.
///      Slot 0: number (uint64), timestamp (uint64). Slot 1: basefee. Slot 2: hash.
///      Slot 3: sequenceNumber (uint64), blobBaseFeeScalar (uint32), baseFeeScalar (uint32).
///      Slot 4: batcherHash. Slot 5: l1FeeOverhead. Slot 6: l1FeeScalar. Slot 7: blobBaseFee.
///      Slot 8: operatorFeeConstant (uint64, offset 0), operatorFeeScalar (uint32, offset 8),
///      daFootprintGasScalar (uint16, offset 12; jovian/exec-engine.md "Scalar loading": slot 8, offset 12).
contract L1Block {
    /// @notice The L1 attributes depositor account: the only caller of the setters.
    address public constant DEPOSITOR_ACCOUNT = 0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001;

    /// @notice The address that stands for ether when no custom gas token is set.
    address internal constant ETHER = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    /// @dev Unstructured storage of the gas paying token: `keccak256(name) - 1`.
    bytes32 internal constant GAS_PAYING_TOKEN_SLOT = bytes32(uint256(keccak256("opstack.gaspayingtoken")) - 1);
    bytes32 internal constant GAS_PAYING_TOKEN_NAME_SLOT =
        bytes32(uint256(keccak256("opstack.gaspayingtokenname")) - 1);
    bytes32 internal constant GAS_PAYING_TOKEN_SYMBOL_SLOT =
        bytes32(uint256(keccak256("opstack.gaspayingtokensymbol")) - 1);

    /// @notice L1 block number of the current L1 origin.
    uint64 public number;
    /// @notice Timestamp of the L1 origin.
    uint64 public timestamp;
    /// @notice Base fee of the L1 origin.
    uint256 public basefee;
    /// @notice Block hash of the L1 origin.
    bytes32 public hash;
    /// @notice Position of the L2 block within its epoch (0 for the first block of an epoch).
    uint64 public sequenceNumber;
    /// @notice Ecotone blob base fee scalar.
    uint32 public blobBaseFeeScalar;
    /// @notice Ecotone base fee scalar.
    uint32 public baseFeeScalar;
    /// @notice The versioned batcher address.
    bytes32 public batcherHash;
    /// @notice Pre-Ecotone fee overhead.
    uint256 public l1FeeOverhead;
    /// @notice Pre-Ecotone fee scalar.
    uint256 public l1FeeScalar;
    /// @notice Blob base fee of the L1 origin.
    uint256 public blobBaseFee;
    /// @notice Isthmus operator fee constant.
    uint64 public operatorFeeConstant;
    /// @notice Isthmus operator fee scalar.
    uint32 public operatorFeeScalar;
    /// @notice Jovian DA footprint gas scalar (jovian/exec-engine.md "DA Footprint Block Limit").
    uint16 public daFootprintGasScalar;

    /// @notice Emitted when the gas paying token is set.
    event GasPayingTokenSet(address indexed token, uint8 indexed decimals, bytes32 name, bytes32 symbol);

    /// @notice Thrown when a setter is called by anyone but the depositor account.
    error NotDepositor();

    /// @notice Semantic version.
    function version() external pure returns (string memory) {
        return "1.7.0+keel";
    }

    /// @notice The gas paying token and its decimals; ether (18 decimals) unless a custom token is set.
    function gasPayingToken() public view returns (address addr_, uint8 decimals_) {
        uint256 packed = uint256(_load(GAS_PAYING_TOKEN_SLOT));
        addr_ = address(uint160(packed));
        if (addr_ == address(0)) return (ETHER, 18);
        decimals_ = uint8(packed >> 248);
    }

    /// @notice The gas paying token's name ("Ether" unless a custom token is set).
    function gasPayingTokenName() external view returns (string memory name_) {
        if (!isCustomGasToken()) return "Ether";
        return _toString(_load(GAS_PAYING_TOKEN_NAME_SLOT));
    }

    /// @notice The gas paying token's symbol ("ETH" unless a custom token is set).
    function gasPayingTokenSymbol() external view returns (string memory symbol_) {
        if (!isCustomGasToken()) return "ETH";
        return _toString(_load(GAS_PAYING_TOKEN_SYMBOL_SLOT));
    }

    /// @notice True when the chain pays gas in a token other than ether.
    function isCustomGasToken() public view returns (bool) {
        (address token,) = gasPayingToken();
        return token != ETHER;
    }

    /// @notice Sets the gas paying token (depositor only).
    function setGasPayingToken(address _token, uint8 _decimals, bytes32 _name, bytes32 _symbol) external {
        if (msg.sender != DEPOSITOR_ACCOUNT) revert NotDepositor();
        _store(GAS_PAYING_TOKEN_SLOT, bytes32((uint256(_decimals) << 248) | uint256(uint160(_token))));
        _store(GAS_PAYING_TOKEN_NAME_SLOT, _name);
        _store(GAS_PAYING_TOKEN_SYMBOL_SLOT, _symbol);
        emit GasPayingTokenSet(_token, _decimals, _name, _symbol);
    }

    /// @notice Bedrock-format L1 attributes (deposits.md "L1 Attributes Deposited Transaction Calldata").
    function setL1BlockValues(
        uint64 _number,
        uint64 _timestamp,
        uint256 _basefee,
        bytes32 _hash,
        uint64 _sequenceNumber,
        bytes32 _batcherHash,
        uint256 _l1FeeOverhead,
        uint256 _l1FeeScalar
    )
        external
    {
        if (msg.sender != DEPOSITOR_ACCOUNT) revert NotDepositor();
        number = _number;
        timestamp = _timestamp;
        basefee = _basefee;
        hash = _hash;
        sequenceNumber = _sequenceNumber;
        batcherHash = _batcherHash;
        l1FeeOverhead = _l1FeeOverhead;
        l1FeeScalar = _l1FeeScalar;
    }

    /// @notice Ecotone-format L1 attributes: packed calldata, no ABI arguments (ecotone/l1-attributes.md).
    ///         bytes 4-7 baseFeeScalar, 8-11 blobBaseFeeScalar, 12-19 sequenceNumber, 20-27 timestamp,
    ///         28-35 number, 36-67 basefee, 68-99 blobBaseFee, 100-131 hash, 132-163 batcherHash.
    function setL1BlockValuesEcotone() external {
        if (msg.sender != DEPOSITOR_ACCOUNT) revert NotDepositor();
        _setEcotoneValues();
    }

    /// @notice Isthmus-format L1 attributes (isthmus/l1-attributes.md): the Ecotone fields, then
    ///         bytes 164-167 operatorFeeScalar and 168-175 operatorFeeConstant. Slot 8 is written whole, so
    ///         daFootprintGasScalar becomes 0, as the deployed Isthmus and Jovian L1Block leave it.
    function setL1BlockValuesIsthmus() external {
        if (msg.sender != DEPOSITOR_ACCOUNT) revert NotDepositor();
        _setEcotoneValues();
        _setOperatorFeeValues(0);
    }

    /// @notice Jovian-format L1 attributes (jovian/l1-attributes.md): the Isthmus fields, then
    ///         bytes 176-177 daFootprintGasScalar. The value is stored as given: the derivation pipeline
    ///         already replaced a SystemConfig value of 0 with the default 400.
    function setL1BlockValuesJovian() external {
        if (msg.sender != DEPOSITOR_ACCOUNT) revert NotDepositor();
        _setEcotoneValues();
        _setOperatorFeeValues(uint16(_calldataWord(176) >> 240));
    }

    /// @dev Slot 8 from bytes 164-175 (operatorFeeScalar ++ operatorFeeConstant) and the DA footprint scalar.
    function _setOperatorFeeValues(uint16 _daFootprintGasScalar) private {
        uint256 w = _calldataWord(164);
        operatorFeeScalar = uint32(w >> 224);
        operatorFeeConstant = uint64(w >> 160);
        daFootprintGasScalar = _daFootprintGasScalar;
    }

    function _setEcotoneValues() private {
        // The first 16 bytes after the selector are, big-endian, baseFeeScalar ++ blobBaseFeeScalar ++
        // sequenceNumber: read as fields so the packing is the compiler's, not hand-written.
        uint256 w = _calldataWord(4);
        baseFeeScalar = uint32(w >> 224);
        blobBaseFeeScalar = uint32(w >> 192);
        sequenceNumber = uint64(w >> 128);
        timestamp = uint64(w >> 64);
        number = uint64(w);
        basefee = _calldataWord(36);
        blobBaseFee = _calldataWord(68);
        hash = bytes32(_calldataWord(100));
        batcherHash = bytes32(_calldataWord(132));
    }

    /// @dev 32 bytes of calldata from `offset` (zero past the end, as CALLDATALOAD reads).
    function _calldataWord(uint256 offset) private pure returns (uint256 w) {
        assembly {
            w := calldataload(offset)
        }
    }

    function _load(bytes32 slot) private view returns (bytes32 v) {
        assembly {
            v := sload(slot)
        }
    }

    function _store(bytes32 slot, bytes32 v) private {
        assembly {
            sstore(slot, v)
        }
    }

    /// @dev A left-aligned, zero-padded bytes32 as a string without the trailing zero bytes.
    function _toString(bytes32 b) private pure returns (string memory out) {
        uint256 len = 0;
        while (len < 32 && b[len] != 0) len++;
        bytes memory s = new bytes(len);
        for (uint256 i = 0; i < len; i++) s[i] = b[i];
        out = string(s);
    }
}
