import { apiError } from '../../../../../libs/http/src/index.js';
import { getWorkspace, type WorkspaceDocument } from '../../../../../libs/read-models/src/index.js';
import type { DocumentStore } from '../../../../../libs/read-models/src/shared/document-store.port.js';
import type { ServiceConfig } from '../../../../../libs/platform/src/config/config.js';

export const requireWorkspace = async (documents: DocumentStore, workspaceId: string): Promise<WorkspaceDocument> => {
  const workspace = await getWorkspace(documents, workspaceId);
  if (!workspace) throw apiError('not_found');
  return workspace;
};

/** Where integrators reach the public API, for the ready-made curl commands (as the start banner prints it). */
export const publicBaseUrl = (config: ServiceConfig): string => `http://localhost:${config.port}`;

/** A whole number typed in a form field; anything else goes to the command as typed, and is refused there. */
export const numberField = (value: string): number | string => (/^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value);
