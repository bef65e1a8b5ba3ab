/**
 * A deterministic fake ERP standing in for the finance agent's real one. Like a real tool it
 * trusts nothing but the tool token: it verifies it (ES256 against the control plane's JWKS,
 * audience tool:erp, token_use tool) and
 * serves only what the token's scopes allow, for the token's tenant.
 */
import { toolTokenVerifier } from '@cp/auth';
import type { AppConfig } from '@cp/common';
import type { ToolImplementation } from '@cp/node-sdk';

export const ERP_TOOL = 'erp';
export const ERP_AUDIENCE = 'tool:erp';

export interface PurchaseOrderLine {
  line: number;
  sku: string;
  quantity: number;
  unitPrice: number;
}

export interface ErpAnswer {
  purchaseOrder: string;
  lines: PurchaseOrderLine[];
  /** Who the ERP served, from the verified tool token (for audit and for the e2e). */
  servedFor: { actor: string; tenant: string; scopes: string[]; capability: string };
}

export function createErpTool(config: AppConfig): ToolImplementation {
  // ES256 from the control plane's pinned JWKS only: the ERP can verify tool tokens, not mint them.
  const verifier = toolTokenVerifier(config, ERP_AUDIENCE);
  return async (input, { token }) => {
    const principal = await verifier.verify(token, 'tool');
    if (!principal.scopes.includes('recon.run')) throw new Error('the ERP needs recon.run to read purchase orders');
    const raw = (input as { invoiceNumber?: unknown }).invoiceNumber;
    const invoiceNumber = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '';
    const seed = digits(invoiceNumber);
    const answer: ErpAnswer = {
      purchaseOrder: `PO-${(seed % 90000) + 10000}`,
      lines: [1, 2, 3].map((line) => ({
        line,
        sku: `SKU-${(seed + line) % 1000}`,
        quantity: 1 + ((seed + line) % 5),
        unitPrice: 10 * line + (seed % 7),
      })),
      servedFor: { actor: principal.actor, tenant: principal.tenant, scopes: principal.scopes, capability: principal.capabilityId },
    };
    return answer;
  };
}

export const digits = (s: string) => Number((s.match(/\d+/)?.[0] ?? '0').slice(-9));
