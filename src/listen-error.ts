import { BassError } from "./errors.js";

/**
 * Why a server could not listen, in words and with what to do: a port in use, a host that is not this
 * machine's, a port that needs privileges (the system's code alone says little to most users).
 */
export function listenError(
  what: string,
  host: string,
  port: number,
  error: NodeJS.ErrnoException,
): BassError {
  const reasons: Record<string, string> = {
    EADDRINUSE: `port ${port} is in use; --port 0 picks a free one`,
    EADDRNOTAVAIL: `${host} is not an address of this machine; --host 127.0.0.1 listens on this machine only`,
    EACCES: `port ${port} needs more privileges than this user has; use a port above 1023`,
    ENOTFOUND: `the host ${host} is not known; give an address such as 127.0.0.1`,
  };
  const reason = reasons[error.code ?? ""] ?? error.message;
  return new BassError("USAGE", `${what} cannot listen on ${host}:${port}: ${reason}`, { cause: error });
}
