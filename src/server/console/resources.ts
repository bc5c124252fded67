import type { FastifyInstance } from 'fastify';
import type { InteractionService } from '../../interactions/service.js';
import { auditLogPath, readAuditLog } from '../../record/audit-log.js';
import { listTemplates } from '../../templates/template-image.js';
import { shippedTemplates } from '../../templates/templates.js';
import { notFoundError } from '../../tenants/ownership.js';

/** The most audit entries one answer holds: the newest ones (docs/console.md, "Audit log"). */
const AUDIT_ENTRIES_SHOWN = 500;

/** An environment id as hookbox makes them; anything else never names a file. */
const ENVIRONMENT_ID = /^env_[a-z2-7]{20}$/;

/**
 * What hookbox keeps besides environments, for the console's views (docs/console.md, "What it
 * shows"): snapshots, credentials (never values: the store's records hold none), templates, the
 * warm pools, and an environment's audit log. Admin-only like every `/console/api/` route
 * (src/server/app.ts checks the key's role before routing).
 */
export function registerConsoleResources(app: FastifyInstance, service: InteractionService): void {
  const { controller } = service;

  app.get('/console/api/snapshots', async (request) => service.snapshots.list(request.caller));

  app.get('/console/api/credentials', async () => ({
    credentials: await controller.credentials.list(),
  }));

  app.get('/console/api/templates', async () => {
    const { images } = controller.backend;
    const built = images ? await listTemplates(images, controller.templates.sandboxImage) : [];
    // Shipped templates are built on first use, which needs the image store too.
    const shipped = images ? Object.keys(shippedTemplates()) : [];
    const pools = [...controller.pools].map(([template, pool]) => ({
      template,
      ready: pool.size,
      starting: pool.starting,
      target: pool.target,
    }));
    return {
      sandbox_image: controller.templates.sandboxImage,
      templates: [
        { name: 'default', image: controller.templates.sandboxImage, kind: 'sandbox image' },
        ...shipped
          .filter((name) => !built.some((template) => template.name === name))
          .map((name) => ({ name, image: null, kind: 'shipped, built on first use' })),
        ...built.map((template) => ({
          name: template.name,
          image: template.image,
          kind: shipped.includes(template.name) ? 'shipped' : 'built here',
          stale: template.stale,
          size_bytes: template.sizeBytes,
          created: template.created,
        })),
      ],
      pools,
    };
  });

  app.get<{ Params: { id: string } }>('/console/api/environments/:id/audit', async (request) => {
    const { id } = request.params;
    const path = ENVIRONMENT_ID.test(id) ? auditLogPath(controller.home, id) : undefined;
    const entries = path ? readAuditLog(path) : [];
    if (!path || entries.length === 0)
      throw notFoundError(
        'audit log',
        id,
        'id',
        ' (the log is gone after retention, or never was)',
      );
    return {
      environment_id: id,
      total: entries.length,
      entries: entries.slice(-AUDIT_ENTRIES_SHOWN).reverse(),
    };
  });
}
