import { apiError } from '#http';
import { getWorkspace, type DocumentStore, type WorkspaceDocument } from '#read-models';
import type { ServiceConfig } from '#platform';

export const requireWorkspace = async (documents: DocumentStore, workspaceId: string): Promise<WorkspaceDocument> => {
  const workspace = await getWorkspace(documents, workspaceId);
  if (!workspace) throw apiError('not_found');
  return workspace;
};

/** Where integrators reach the public API, for the ready-made curl commands (as the start banner prints it). */
export const publicBaseUrl = (config: ServiceConfig): string => `http://localhost:${config.port}`;

/** A number typed in a form field; anything else goes to the body's DTO as typed, and is refused there. */
export const numberField = (value: string): number | string => (/^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value);
