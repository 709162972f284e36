import type { NestExpressApplication } from '@nestjs/platform-express';
import helmet from 'helmet';
import type { HttpSettings } from './http.settings';

/** Every header a PresQT client sends, besides the body's type and the request id. */
const PRESQT_HEADERS = [
  'presqt-source-token',
  'presqt-destination-token',
  'presqt-file-duplicate-action',
  'presqt-keyword-action',
  'presqt-email-opt-in',
  'presqt-fairshare-evaluator-opt-in',
];

/**
 * What browsers are told: security headers (helmet) with a content security policy that Swagger UI and the
 * queue dashboard work under (their scripts are files of this origin; Swagger UI sets inline styles), and
 * CORS for the configured origins, answered before routing so that a preflight of any path gets its answer.
 */
export function applyBrowserAccess(app: NestExpressApplication, settings: HttpSettings): void {
  if (settings.trustProxy !== undefined) {
    const hops = Number(settings.trustProxy);
    app.set('trust proxy', Number.isInteger(hops) ? hops : settings.trustProxy);
  }
  app.enableCors({
    origin: settings.corsOrigins,
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['content-type', 'x-request-id', ...PRESQT_HEADERS],
    exposedHeaders: ['Content-Disposition', 'Retry-After', 'X-Request-Id'],
    maxAge: 600,
  });
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          objectSrc: ["'none'"],
          frameAncestors: ["'none'"],
        },
      },
      // downloads are fetched by clients of other origins
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    }),
  );
}
