import type { RunRecord } from "../engine/types.js";
import type { HistoryStore } from "../history/store.js";
import { summaryOf } from "../history/summary.js";

/** An event stream's two ends, as the server gives them: text out, and its end. */
export interface EventSink {
  write(text: string): void;
  end(): void;
}

/**
 * The runs as they are written, for `GET /_bass/events` (server-sent events): each record written sends
 * `event: run` with its summary to every open stream. Nothing is parsed or sent while no stream is open.
 */
export interface RunEvents {
  /** Opens a stream; returns what closes it. */
  subscribe(sink: EventSink): () => void;
  /** The store, sending an event for every record written through it. */
  observe(history: HistoryStore): HistoryStore;
  /** Ends every stream (serve stops). */
  close(): void;
}

/** A comment line now and then keeps proxies and browsers from closing a quiet stream. */
const keepAliveMs = 15_000;

/** The runs as they are written, to every open event stream (see RunEvents). */
export function createRunEvents(): RunEvents {
  const sinks = new Set<EventSink>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const send = (text: string) => {
    for (const sink of sinks) sink.write(text);
  };
  const publish = (record: RunRecord) => send(`event: run\ndata: ${JSON.stringify(summaryOf(record))}\n\n`);
  return {
    subscribe(sink) {
      sinks.add(sink);
      // The retry delay, then nothing until a run ends.
      sink.write("retry: 2000\n\n");
      timer ??= setInterval(() => send(": keep-alive\n\n"), keepAliveMs).unref();
      return () => {
        sinks.delete(sink);
        if (sinks.size === 0) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    observe(history) {
      return {
        ...history,
        write(record, request) {
          history.write(record, request);
          if (sinks.size) publish(record);
        },
        writeLine(id, line, request) {
          history.writeLine(id, line, request);
          if (sinks.size) publish(JSON.parse(line) as RunRecord);
        },
      };
    },
    close() {
      for (const sink of [...sinks]) sink.end();
      sinks.clear();
      clearInterval(timer);
      timer = undefined;
    },
  };
}
