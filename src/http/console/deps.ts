// What the console needs, handed down by the composition root: every project served here (its backend, its
// settings, its API keys), the users, the password check the OAuth sign-in uses, and where sessions are kept.
import type { ConsoleSessions } from '../../auth/console-sessions.js';
import type { SignInResult } from '../../auth/password-sign-in.js';
import type { FormStore } from '../../auth/sign-in-forms.js';
import type { Backend } from '../../backend/backend.js';
import type { TargetConfig } from '../../model/config.js';
import type { ApiKeyInfo, RevokeOutcome, Role, User } from '../../model/users.js';
import type { NewReceiverInput, WebhookReceiverInfo } from '../../backend/webhooks/receivers.js';
import type { WebhookEvent } from '../../model/webhooks.js';

/** What the overview shows of the project's index (read from its own database). */
export interface IndexFigures {
  pages: number;
  inSearch: number;
  bytes: number;
  /** What `bytes` counts (the SQLite file and WAL, or the PostgreSQL schema's tables and indexes). */
  counted: string;
}

export interface ConsoleProject {
  /** The public token (<id>:<region>). */
  token: string;
  backend: Backend;
  /** The index figures; null when another service (api.base_url) holds the index. */
  figures: (() => Promise<IndexFigures>) | null;
  targets: readonly TargetConfig[];
  webhooks: {
    /** Webhooks of the config, without their secrets: read only here. */
    configured: readonly { url: string; events: readonly WebhookEvent[] }[];
    /** Those added in the console: the backend's receivers functions. */
    list(): Promise<WebhookReceiverInfo[]>;
    /** A BackendError names the field that is wrong; the secret is returned this once. */
    add(input: NewReceiverInput): Promise<{ receiver: WebhookReceiverInfo; secret: string }>;
    remove(id: number): Promise<boolean>;
  };
  /** The project's /v1 API keys: the same functions `svc keys` uses. */
  keys: {
    create(name: string): Promise<{ key: string; info: ApiKeyInfo }>;
    list(): Promise<ApiKeyInfo[]>;
    revoke(id: number): Promise<RevokeOutcome>;
  };
}

export interface ConsoleDeps {
  /** Every project of the config, in its order. */
  projects: readonly ConsoleProject[];
  /** Login and password, with the OAuth sign-in's limit of failed attempts. */
  signIn(login: string, password: string, address: string): Promise<SignInResult>;
  sessions: ConsoleSessions;
  /** Where the sign-in forms are signed and spent: shared by every process on the store. */
  signInForms: FormStore;
  users: {
    list(): Promise<User[]>;
    /** Adds a user with a sign-in password; a UserError names the field that is wrong. */
    add(login: string, role: Role | string, password: string): Promise<void>;
  };
  /** Cookies get Secure (the service is reached over https). */
  secureCookies: boolean;
  toolVersion: string;
}
