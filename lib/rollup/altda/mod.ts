/** Alt-DA (specs/experimental/alt-da.md): the DA server client, the commitment and challenge state, the manager. */
export * from "./da_client.ts";
export * from "./da_state.ts";
export * from "./da_manager.ts";
export * from "./da_server.ts";
