/**
 * BenchToken, the tiny ERC-20-like contract of ../shared/bench/rpc-bench.mjs (solc 0.8.37,
 * optimizer on, evmVersion paris, no metadata). Source:
 *
 *   contract BenchToken {
 *       mapping(address => uint256) public balanceOf;
 *       event Transfer(address indexed from, address indexed to, uint256 value);
 *       constructor() { balanceOf[msg.sender] = 1e27; emit Transfer(address(0), msg.sender, 1e27); }
 *       function transfer(address to, uint256 value) external returns (bool) {
 *           uint256 b = balanceOf[msg.sender]; require(b >= value);
 *           unchecked { balanceOf[msg.sender] = b - value; } balanceOf[to] += value;
 *           emit Transfer(msg.sender, to, value); return true;
 *       }
 *   }
 */

export const BENCH_TOKEN_BYTECODE =
  "0x6080604052348015600f57600080fd5b50336000818152602081815260408083206b033b2e3c9fd0803ce80000009081905590519081527fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef910160405180910390a36101bb806100706000396000f3fe608060405234801561001057600080fd5b50600436106100365760003560e01c806370a082311461003b578063a9059cbb1461006e575b600080fd5b61005b61004936600461014e565b60006020819052908152604090205481565b6040519081526020015b60405180910390f35b61008161007c366004610170565b610091565b6040519015158152602001610065565b33600090815260208190526040812054828110156100ae57600080fd5b3360009081526020819052604080822085840390556001600160a01b0386168252812080548592906100e190849061019a565b90915550506040518381526001600160a01b0385169033907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef9060200160405180910390a360019150505b92915050565b80356001600160a01b038116811461014957600080fd5b919050565b60006020828403121561016057600080fd5b61016982610132565b9392505050565b6000806040838503121561018357600080fd5b61018c83610132565b946020939093013593505050565b8082018082111561012c57634e487b7160e01b600052601160045260246000fd" as const;

/** The constructor's mint to the deployer. */
export const BENCH_TOKEN_SUPPLY = 10n ** 27n;

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

export const BENCH_TOKEN_ABI = [
  {
    type: "function",
    name: "balanceOf",
    stateMutability: "view",
    inputs: [{ name: "", type: "address" }],
    outputs: [{ name: "", type: "uint256" }],
  },
  {
    type: "function",
    name: "transfer",
    stateMutability: "nonpayable",
    inputs: [{ name: "to", type: "address" }, { name: "value", type: "uint256" }],
    outputs: [{ name: "", type: "bool" }],
  },
  {
    type: "event",
    name: "Transfer",
    anonymous: false,
    inputs: [
      { name: "from", type: "address", indexed: true },
      { name: "to", type: "address", indexed: true },
      { name: "value", type: "uint256", indexed: false },
    ],
  },
] as const;
