/** The host layer's verbs, one family per file; importers use this index. */
export { deriveNode, nodeArtifactsMissing } from './branch-node';
export { cleanupLocal } from './cleanup';
export { closeSession } from './close';
export { HostError, hostDirs, locate, type HostContext } from './context';
export { hostVerbNamed, runHostVerb, type HostVerbCall } from './verbs';
export { postKeywordComment, recordControl, type CommentResult } from './control';
export { enterNode, type EnterNodeInput } from './enter-node';
export { deliverEvent } from './deliver';
export { environmentDrift } from './drift';
export { linkPullRequest, type LinkResult } from './link';
export { openSession } from './open';
export { spawnSession } from './spawn';
export { recordWaiting } from './waiting';
export { recordDropped } from './dropped';
export { answerPermission } from './permission';
