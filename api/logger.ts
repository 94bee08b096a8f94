import pino from 'pino';

/** JSON lines; whatever might carry a secret is censored before it is written. */
export function createLogger(level: string, name = 'pos', destination?: pino.DestinationStream): pino.Logger {
  const options: pino.LoggerOptions = {
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
      ],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
