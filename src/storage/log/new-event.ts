/**
 * An event to write: what an event record is made from besides its place in the log. A leaf:
 * the record encoders, the stream rules and the node's services all speak of it.
 */
export interface NewEvent {
  eventId: string;
  eventType: string;
  data: Buffer;
  metadata: Buffer;
  isJson: boolean;
}
