import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";

/** serve's open connections (docs/behaviour.md#bass-serve): at most `max`, making room by closing idle ones. */
export interface Connections {
  /** Marks the connection as answering a request until the returned function is called (once or more). */
  answering(socket: Duplex): () => void;
}

/**
 * Counts `server`'s connections itself, instead of Node's `maxConnections`, which refuses every newcomer
 * while the limit is held: idle or trickling sockets would then lock every client out for as long as they
 * stay. A connection is idle from its start, and again from the end of its last answer, until the request
 * it reads has arrived whole. At the limit, a new connection closes the one idle the longest; one that
 * answers a request is never closed for it, and when every other connection does, the newcomer is
 * refused (`refuse`).
 */
export function trackConnections(server: Server, max: number, refuse: (socket: Socket) => void): Connections {
  // Oldest idle first: a Set keeps the order of insertion, and a connection that goes idle again is re-added.
  const idle = new Set<Duplex>();
  const answers = new Map<Duplex, number>();
  let open = 0;
  server.on("connection", (socket: Socket) => {
    open++;
    idle.add(socket);
    socket.once("close", () => {
      open--;
      idle.delete(socket);
      answers.delete(socket);
    });
    if (open <= max) return;
    const oldest = idle.values().next().value;
    if (oldest !== undefined && oldest !== socket) oldest.destroy();
    else refuse(socket);
  });
  return {
    answering(socket) {
      if (socket.destroyed) return () => {};
      idle.delete(socket);
      answers.set(socket, (answers.get(socket) ?? 0) + 1);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const left = (answers.get(socket) ?? 1) - 1;
        if (left > 0) answers.set(socket, left);
        else if (!socket.destroyed && answers.delete(socket)) idle.add(socket);
      };
    },
  };
}
