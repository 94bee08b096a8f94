import t from 'tap';
import { startService } from '../support/service.ts';

const api = await startService(t);

t.test('GET /healthz answers 200 while the process lives', async (t) => {
  const reply = await api.raw('GET', '/healthz');
  t.equal(reply.status, 200);
  t.same(reply.body, { status: 'ok' });
});

t.test('GET /readyz answers 200 when the database answers', async (t) => {
  const reply = await api.raw('GET', '/readyz');
  t.equal(reply.status, 200);
});
