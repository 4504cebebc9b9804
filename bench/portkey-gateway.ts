// Portkey's open-source gateway (`@portkey-ai/gateway`, build/start-server.js) for bench/door.ts,
// started as its own process with its own arguments (--port=<port> --headless), with one fix: with
// the @hono/node-server this install resolves (newer than 1.14.2), the gateway's response service
// appends headers to the upstream `fetch` response's headers, which are immutable, so every
// streamed chat completion fails with `TypeError: immutable` and a 500 (Portkey-AI/gateway issues
// #1389 and #1550). Here `fetch` answers a copy of each response with headers of its own, which is
// what the gateway's fix does; its cost is one copy of the headers per upstream call.
const nativeFetch = globalThis.fetch;
const NativeResponse = globalThis.Response;
globalThis.fetch = async (input, init) => {
  const res = await nativeFetch(input, init);
  return new NativeResponse(res.body, {
    status: res.status,
    statusText: res.statusText,
    headers: new Headers(res.headers),
  });
};

// The gateway's entry has no types; it is only run.
const ENTRY = '@portkey-ai/gateway/build/start-server.js';
await import(ENTRY);
