/** The in-memory state of the fake GitHub (see server.ts): what a test seeds and the routes read and change. */
export interface FakeUser {
  login: string;
  type?: string;
}

export interface FakeItem {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  stateReason: string | null;
  labels: string[];
  user: FakeUser;
  createdAt: string;
  updatedAt: string;
  pull?: {
    head: { ref: string; sha: string; owner: string };
    base: string;
    merged: boolean;
    draft: boolean;
    closingIssues: number[];
  };
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user: FakeUser;
  createdAt: string;
  updatedAt: string;
}

export interface FakeReview {
  id: number;
  pull: number;
  body: string;
  state: string;
  user: FakeUser;
  submittedAt: string;
}

export interface FakeReviewComment extends FakeComment {
  path: string;
  line: number | null;
}

export interface FakeCheckRun {
  id: number;
  sha: string;
  name: string;
  status: string;
  conclusion: string | null;
}

export interface FakeRepo {
  owner: string;
  name: string;
  items: Map<number, FakeItem>;
  comments: FakeComment[];
  reviews: FakeReview[];
  reviewComments: FakeReviewComment[];
  checkRuns: FakeCheckRun[];
  permissions: Map<string, string>;
  /** Labels that exist; adding any other label fails with 422 when `strictLabels` is set. */
  labels: Set<string>;
  strictLabels: boolean;
  /** When set, every POST to an item's labels answers this (e.g. 403 for a token without issues:write). */
  refuseLabels: { status: number; message: string } | null;
}

export interface RecordedRequest {
  method: string;
  path: string;
  conditional: boolean;
  status: number;
  authorization: string | undefined;
}
