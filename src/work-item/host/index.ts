/** The host layer's verbs, one family per file; importers use this index. */
export { deriveNode, nodeArtifactsMissing } from './branch-node';
export { cleanupLocal, type CleanupResult } from './cleanup';
export { closeSession, type CloseInput, type CloseResult } from './close';
export { HostError, hostDirs, locate, type HostContext } from './context';
export { hostVerbNamed, runHostVerb } from './host-verb';
export { postKeywordComment, recordControl, type CommentResult, type RecordControlInput } from './control';
export { enterNode, type EnterNodeInput } from './enter-node';
export { deliverEvent, type DeliverInput, type DeliverResult } from './deliver';
export { environmentDrift, type EnvironmentDrift } from './drift';
export { linkPullRequest, type LinkResult } from './link';
export { openSession, type OpenInput, type OpenResult } from './open';
export { spawnSession, type SpawnResult } from './spawn';
export { recordWaiting } from './waiting';
export { recordDropped } from './dropped';
export { answerPermission } from './permission';
