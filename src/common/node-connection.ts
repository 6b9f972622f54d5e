/**
 * How a client command reaches a running node: the CLI's node flags describe it and maint/'s
 * clients use it, so it lives beneath both.
 */
export interface NodeConnection {
  /** The node's base URL, http:// or https://. */
  url: string;
  username: string;
  password: string;
  /** A PEM file of CA certificates to trust for https URLs, besides the system's. */
  caFile?: string;
  timeoutMs: number;
}
