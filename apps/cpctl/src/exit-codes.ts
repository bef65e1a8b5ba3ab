/**
 * Process exit codes, one per outcome a CI job may want to branch on. Stable: documented in
 * docs/cpctl.md, and scripts depend on them, so never renumber; only add.
 */
export enum ExitCode {
  Ok = 0,
  /** Manifest or agent files are invalid (validate, or plan/apply/card diff reading them), or the control plane refused them. */
  InvalidFiles = 1,
  /** Wrong arguments or options. */
  Usage = 2,
  /** card diff: the public card changed and --approve was not given. */
  UnapprovedChange = 3,
  /** card diff: text of a non-public capability appears in the public card. */
  Leak = 4,
  /** plan/apply: the change is not allowed by the lifecycle rules (e.g. removing a capability never deprecated). */
  PlanRefused = 5,
  /** apply: the registry changed since the plan was read (stale expectedRevision). */
  StaleRevision = 6,
  /** The token is missing, invalid, expired, or lacks the rights for this agent. */
  BadToken = 7,
  /** The control plane could not be reached (connection refused, DNS, timeout, not a GraphQL endpoint). */
  Unreachable = 8,
  /** The agent does not exist. */
  NotFound = 9,
  /** Anything else the control plane or the file system reported. */
  Failure = 10,
  /** route test: a labelled message was routed to the wrong capability, or accuracy is below min_accuracy. */
  RoutingTestFailed = 11,
  /** card verify: the card carries no signatures. */
  CardUnsigned = 12,
  /** card verify: a signature names a key of the JWKS but does not verify: the card is not what was signed. */
  CardSignatureInvalid = 13,
  /** card verify: no signature was made with a key of the given JWKS (unknown kid). */
  CardUnknownKey = 14,
  /** card verify: the JWKS could not be fetched or read. */
  JwksUnavailable = 15,
  /** card verify: what the URL answered is not an agent card (not JSON, not an object, malformed signatures). */
  CardMalformed = 16,
  /** plan/apply/card diff: a change removes, narrows or hides a capability called in the window and --accept-impact does not name it. */
  UnacceptedImpact = 17,
  /** catalog verify: the document breaks a MUST rule of the AI Catalog specification. */
  CatalogInvalid = 18,
  /** gateway drift: an upstream does not answer, offers skills no manifest covers, or no longer lists a manifest's skill. */
  UpstreamDrift = 19,
  /** apply, agent allow-list: the change has parts the approval policy gates; a change request now holds it for a second admin (nothing applied). */
  ChangeRequestFiled = 20,
  /** change-requests approve/reject: the request is no longer pending (already applied, rejected or stale). */
  ChangeRequestNotPending = 21,
}
