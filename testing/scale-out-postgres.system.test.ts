/** Three gateway processes on PostgreSQL alone: see scale-out-cluster.ts. */
import { describeThreeInstances } from './scale-out-cluster';

describeThreeInstances({ label: 'PostgreSQL alone', redis: false });
