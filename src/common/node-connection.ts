/**
 * How a client command reaches a running node: the CLI's node flags describe it and maint/'s
 * clients use it, so it lives beneath both.
 */
import { Errors } from './errors.js';

export interface NodeConnection {
  /** The node's base URL, http:// or https://. */
  url: string;
  /**
   * Every URL given with --url when there were several (the nodes of a cluster): the command
   * goes to the one that leads. Absent when one was given.
   */
  clusterUrls?: readonly string[];
  username: string;
  password: string;
  /** A PEM file of CA certificates to trust for https URLs, besides the system's. */
  caFile?: string;
  timeoutMs: number;
}

/** `url` parsed, or the coded error that says how to write --url. */
export function checkNodeUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw Errors.optionInvalid.create('--url', `must be a URL such as http://127.0.0.1:2113, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw Errors.optionInvalid.create('--url', `must start with http:// or https://, got ${JSON.stringify(url)}`);
  }
  return parsed;
}

/** The URLs of --url, one or several separated by commas, each checked. */
export function nodeUrls(text: string): string[] {
  const urls = text.split(',').map((url) => url.trim()).filter((url) => url !== '');
  if (urls.length === 0) throw Errors.optionInvalid.create('--url', 'give the URL of a node, such as http://127.0.0.1:2113, or several separated by commas');
  for (const url of urls) checkNodeUrl(url);
  return urls;
}

/** The one URL of --url, for a command that acts on the node that receives it. */
export function oneNodeUrl(text: string, command: string): string {
  const urls = nodeUrls(text);
  if (urls.length > 1) {
    throw Errors.optionInvalid.create('--url', `${command} acts on the node that receives it; give that node's URL alone, not ${urls.length} URLs`);
  }
  return urls[0];
}
