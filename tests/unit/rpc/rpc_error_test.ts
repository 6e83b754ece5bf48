import { assertEquals } from "../../assert.ts";
import { BaseError } from "../../../lib/common/mod.ts";
import { RPC_ERROR_CODES, RpcError, toRpcErrorObject } from "../../../lib/rpc/rpc_error.ts";

Deno.test("RpcError.reverted: code 3, message with and without reason, data", () => {
  assertEquals(RpcError.reverted("0x", "").toJSON(), { code: 3, message: "execution reverted", data: "0x" });
  assertEquals(RpcError.reverted("0x1234", "paused").toJSON(), {
    code: 3,
    message: "execution reverted: paused",
    data: "0x1234",
  });
});

Deno.test("toRpcErrorObject maps RpcError as is, BaseError to -32000, others to -32603 and reports them", () => {
  const seen: unknown[] = [];
  const report = (e: unknown) => seen.push(e);
  assertEquals(toRpcErrorObject(RpcError.methodNotFound("x_y"), report), {
    code: -32601,
    message: "the method x_y does not exist/is not available",
  });
  assertEquals(toRpcErrorObject(new RpcError(-32005, "limit exceeded", { retry: 1 }), report), {
    code: -32005,
    message: "limit exceeded",
    data: { retry: 1 },
  });
  assertEquals(toRpcErrorObject(new BaseError("GAS", "intrinsic gas too low"), report), {
    code: RPC_ERROR_CODES.SERVER_ERROR,
    message: "intrinsic gas too low",
  });
  assertEquals(seen.length, 0);
  const boom = new RangeError("secret internals");
  assertEquals(toRpcErrorObject(boom, report), { code: -32603, message: "internal error" });
  assertEquals(seen, [boom]);
});
