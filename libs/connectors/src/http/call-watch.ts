import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { countReadBuffer } from '@app/common';
import { ConnectorError } from '../connector-error';

/** A file body is judged on each this many seconds during which we wait on the upstream. */
const PACE_WINDOW_SECONDS = 10;

/** What one upstream call is given (docs/limits.md#upstream-deadlines). */
export interface CallLimits {
  /** the time from the call's start to the last byte of its answer, waits between attempts left out */
  deadlineMs: number;
  /** set for a file: its answer's headers within `deadlineMs`, then its body at least this fast */
  minBytesPerSecond?: number;
}

/**
 * One upstream call's clock: its deadline, and for a file the pace of its body, measured only while the
 * reader waits on the upstream (not while the reader itself holds the body back). When either runs out, the
 * attempt under way is aborted with a 504 that names the upstream, which undici hands on as it is: the call
 * rejects with it, or the body being read errors with it.
 */
export class CallWatch {
  private remainingMs: number;
  private runningSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pace: NodeJS.Timeout | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private expired: ConnectorError | undefined;
  private readerPaused = false;
  private bytes = 0;
  private window = { seconds: 0, bytes: 0 };

  constructor(
    private readonly limits: CallLimits,
    /** `GitHub`, and the request: for messages */
    private readonly upstream: string,
    private readonly request: () => string,
  ) {
    this.remainingMs = limits.deadlineMs;
  }

  /** Runs the deadline: from each dispatch of the call (a redirect's too), and again after each wait. */
  run(): void {
    if (this.expired || this.runningSince !== undefined || this.pace) return;
    this.runningSince = Date.now();
    this.timer = setTimeout(
      () =>
        this.expire(
          `${this.upstream} did not answer within ${this.limits.deadlineMs / 1000} s (${this.request()}).`,
        ),
      this.remainingMs,
    );
    this.timer.unref();
  }

  /** Stops the deadline while the call waits between attempts (a backoff, or a wait a rate limit asked for). */
  hold(): void {
    if (this.runningSince === undefined) return;
    clearTimeout(this.timer);
    this.remainingMs -= Date.now() - this.runningSince;
    this.runningSince = undefined;
  }

  /** An answer is over (read whole, or failed): the clock stops until the call's next dispatch, if any. */
  stop(): void {
    this.hold();
    clearInterval(this.pace);
    this.pace = undefined;
    this.controller = undefined;
  }

  /** undici's interceptor: each dispatch of a call that carries a watch reports to it. */
  static interceptor(): Dispatcher.DispatcherComposeInterceptor {
    return (dispatch) => (options, handler) => {
      const watch = (options as WatchedOptions).watch;
      return dispatch(options, watch ? watch.handlerFor(handler) : handler);
    };
  }

  private handlerFor(inner: Dispatcher.DispatchHandler): Dispatcher.DispatchHandler {
    let reader: Dispatcher.DispatchController | undefined;
    let answering = false;
    return {
      onRequestStart: (controller, context) => {
        this.controller = controller;
        reader = this.readerSide(controller);
        if (this.expired) controller.abort(this.expired);
        inner.onRequestStart?.(reader, context);
      },
      onRequestUpgrade: (controller, statusCode, headers, socket) =>
        inner.onRequestUpgrade?.(reader ?? controller, statusCode, headers, socket),
      onResponseStart: (controller, statusCode, headers: IncomingHttpHeaders, statusMessage) => {
        answering = true;
        // the answer to a file sent up may come before the file is read whole
        this.run();
        if (statusCode < 300) this.bodyStarts();
        inner.onResponseStart?.(reader ?? controller, statusCode, headers, statusMessage);
      },
      onResponseData: (controller, chunk) => {
        this.bytes += chunk.length;
        // each chunk is (a part of) a buffer the socket read: dead once read, as a file's chunks are
        countReadBuffer(chunk.length);
        inner.onResponseData?.(reader ?? controller, chunk);
      },
      onResponseEnd: (controller, trailers) => {
        this.stop();
        inner.onResponseEnd?.(reader ?? controller, trailers);
      },
      onResponseError: (controller, error) => {
        this.stop();
        // before an answer the caller tells the failures apart by their codes; after it, they are the body's
        const named = answering && !(error instanceof ConnectorError) ? this.brokeOff(error) : error;
        // an error before the request started (a refused connection) comes with no reader side yet
        inner.onResponseError?.(reader ?? controller, named);
      },
    };
  }

  /** The controller as the reader sees it: its pauses (the reader is behind) stop the pace clock. */
  private readerSide(controller: Dispatcher.DispatchController): Dispatcher.DispatchController {
    const setPaused = (paused: boolean) => (this.readerPaused = paused);
    return {
      get aborted() {
        return controller.aborted;
      },
      get paused() {
        return controller.paused;
      },
      get reason() {
        return controller.reason;
      },
      get rawHeaders() {
        return controller.rawHeaders;
      },
      get rawTrailers() {
        return controller.rawTrailers;
      },
      abort: (reason) => controller.abort(reason),
      pause: () => {
        setPaused(true);
        controller.pause();
      },
      resume: () => {
        setPaused(false);
        controller.resume();
      },
    };
  }

  /** A successful answer's body begins: a file is held to its pace from now on, anything else to the deadline. */
  private bodyStarts(): void {
    const minRate = this.limits.minBytesPerSecond;
    if (minRate === undefined || this.pace) return;
    this.hold();
    let counted = this.bytes;
    this.pace = setInterval(() => {
      const arrived = this.bytes - counted;
      counted = this.bytes;
      if (this.readerPaused) return;
      this.window.seconds += 1;
      this.window.bytes += arrived;
      if (this.window.seconds < PACE_WINDOW_SECONDS) return;
      const { bytes } = this.window;
      this.window = { seconds: 0, bytes: 0 };
      if (bytes < minRate * PACE_WINDOW_SECONDS)
        this.expire(
          `${this.upstream} sent ${bytes} bytes in ${PACE_WINDOW_SECONDS} s, slower than the ${minRate} bytes a second a file must come at (${this.request()}).`,
        );
    }, 1000);
    this.pace.unref();
  }

  private expire(message: string): void {
    this.expired = new ConnectorError(504, message);
    const controller = this.controller;
    this.stop();
    controller?.abort(this.expired);
  }

  /** A body that failed after its answer began (the upstream dropped it, a resume was refused). */
  private brokeOff(error: Error & { code?: string }): ConnectorError {
    return new ConnectorError(
      502,
      `${this.upstream} broke off its answer (${this.request()}): ${error.code ?? error.message}.`,
    );
  }
}

/** The dispatch options of a watched call. */
export interface WatchedOptions {
  watch?: CallWatch;
}
