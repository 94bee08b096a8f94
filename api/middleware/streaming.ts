import type { Context } from 'hono';
import type { Tx } from '../db.ts';
import type { AppEnv } from '../env.ts';

/**
 * How long a streamed answer waits for its client to take the next bytes (or the first) before it cuts
 * the answer and ends its transaction. A cursor suspended between two reads does not count as idle
 * for PostgreSQL (no `idle_in_transaction_session_timeout`: the server is inside a statement), so
 * nothing else would free the connection of a client that stops reading without closing: the same
 * 15 s as that bound.
 */
export const STREAM_STALL_MS = 15_000;

/**
 * An answer whose body is read from a transaction as it is sent (GET /fiscal/archive: a period read with
 * a cursor, never held whole in memory). `transaction` opens it (on the server chosen: api/lib/replica.ts)
 * and runs `work` in it; `answered` tells it whether the body has begun, after which a failure cannot be
 * read again elsewhere. `run` answers once its first statements are done, so that their failures are
 * error answers; the transaction then stays open, with its connection, until the body has been sent, the
 * client has gone, or the client has taken nothing for STREAM_STALL_MS. `answerEnded` says when: the
 * request's admission place (api/middleware/admission.ts) is held until then. A failure once the body has
 * started cuts the answer (the connection is closed, never a clean end), and is logged.
 */
export function answerStreamed(
  c: Context<AppEnv>,
  transaction: (work: (tx: Tx) => Promise<void>, answered: () => boolean) => Promise<unknown>,
  run: (tx: Tx) => Promise<Response>,
): Promise<Response> {
  return new Promise((answer, fail) => {
    let answered = false;
    const ended = transaction(async (tx) => {
      const response = await run(tx);
      answered = true;
      if (!response.body) return answer(response);
      const watched = watchedBody(response.body, STREAM_STALL_MS);
      answer(new Response(watched.body, response));
      await watched.sent;
    }, () => answered);
    c.set('answerEnded', ended.then(
      () => undefined,
      () => undefined,
    ));
    ended.catch((error: unknown) => {
      if (!answered) fail(error);
      else c.var.log.warn({ err: error }, 'streamed answer cut short');
    });
  });
}

/**
 * `source` passed on as the client takes it, with `sent`: resolved once it has all been taken or the
 * client cancelled (went away), rejected when reading it failed or the client took nothing for
 * `stallMs`; the answer is then errored, so that the server closes the connection.
 */
export function watchedBody(source: ReadableStream<Uint8Array>, stallMs: number): { body: ReadableStream<Uint8Array>; sent: Promise<void> } {
  const reader = source.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const sent = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const waitForClient = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    timer = setTimeout(() => {
      const stalled = new Error(`the client of a streamed answer took nothing for ${stallMs} ms: the answer is cut`);
      controller.error(stalled);
      void reader
        .cancel(stalled)
        .catch(() => undefined)
        .then(() => settle.reject(stalled));
    }, stallMs);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start: waitForClient,
      async pull(controller) {
        clearTimeout(timer);
        try {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            settle.resolve();
            return;
          }
          controller.enqueue(value);
          waitForClient(controller);
        } catch (error) {
          controller.error(error);
          settle.reject(error);
        }
      },
      async cancel(reason) {
        clearTimeout(timer);
        await reader.cancel(reason).catch(() => undefined);
        settle.resolve();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, sent };
}
