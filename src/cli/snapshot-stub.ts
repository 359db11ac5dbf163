/**
 * Put by scripts/build-snapshot.ts in place of every module that loads the Temporal client, in the start-up
 * snapshot's bundle: requiring it throws, and the snapshot hands the run over to the script (snapshot-hand-over.ts).
 */
import { HandOverToScript } from './snapshot-hand-over';

throw new HandOverToScript('a module that loads the Temporal client');
