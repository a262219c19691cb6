/** The typed errors of flows, apart from `flowTypes.ts` so the expression language can throw them without importing the flow shapes. */
import { ArborError } from '../errors';

/** A flow could not run or go on: the message says where and why, with the memory when it matters. */
export class FlowError extends ArborError {
  constructor(
    message: string,
    readonly memory?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** An expression refused at load or at run time (syntax, or a reach outside memory). */
export class FlowExpressionError extends ArborError {
  constructor(
    message: string,
    readonly expression: string,
    /** 0-based index in the expression text, when known. */
    readonly index?: number,
  ) {
    super(message);
  }
}
