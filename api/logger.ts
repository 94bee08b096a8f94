import pino from 'pino';

/** JSON lines; whatever might carry a secret is censored before it is written. */
export function createLogger(level: string, name = 'pos'): pino.Logger {
  return pino({
    name,
    level,
    base: { service: name },
    redact: {
      paths: [
        'password',
        'token',
        '*.password',
        '*.current_password',
        '*.token',
        '*.authorization',
        '*.headers.authorization',
        '*.headers["x-pairing-secret"]',
        '*.card_no',
        'payload.sealed_token',
      ],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
