/** Three gateway processes on PostgreSQL and Redis: see scale-out-cluster.ts. */
import { describeThreeInstances } from './scale-out-cluster';

describeThreeInstances({ label: 'PostgreSQL and Redis', redis: true });
