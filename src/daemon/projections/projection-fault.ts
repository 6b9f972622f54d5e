/**
 * A projection's fault whose reason svcdb wrote for the projection's users: about its rights, its
 * limits or what its code did. Any other error that stops a projection (the storage's, say) may
 * carry internal detail, and only operators read its reason (see `publicReason`).
 */
export class ProjectionFault extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProjectionFault';
  }
}
