/**
 * The finance agent's deterministic fake handlers (seed's worked example): invoice lookup for
 * everyone, reconciliation for partners holding recon.run. Same input, same output.
 */
import type { HandlerContext, HandlerRegistry, HandlerResult } from '@cp/node-sdk';
import { digits, ERP_TOOL, type ErpAnswer } from './erp-tool';

export const LOOKUP_HANDLER = 'invoices.v1.lookup';
export const RECONCILE_HANDLER = 'recon.v3.reconcile';

const INVOICE = /\bINV-\d{3,12}\b/i;

/** From a data part's invoiceNumber, the text, or a file name such as INV-20931.pdf. */
export function invoiceNumberOf(ctx: HandlerContext): string | undefined {
  for (const p of ctx.message.parts) {
    const d = p.data as { invoiceNumber?: unknown } | undefined;
    if (d && typeof d.invoiceNumber === 'string' && INVOICE.test(d.invoiceNumber)) return d.invoiceNumber.toUpperCase();
  }
  const inText = INVOICE.exec(ctx.text)?.[0];
  if (inText) return inText.toUpperCase();
  for (const p of ctx.message.parts) {
    const inName = p.filename ? INVOICE.exec(p.filename)?.[0] : undefined;
    if (inName) return inName.toUpperCase();
  }
  return undefined;
}

/** JSON as a data part when JSON is wanted, else as text. */
function output(ctx: HandlerContext, name: string, value: Record<string, unknown>): HandlerResult {
  const part =
    ctx.outputMode === 'application/json'
      ? { data: value, mediaType: 'application/json' }
      : { text: JSON.stringify(value, null, 2), mediaType: 'text/plain' };
  return { state: 'completed', artifacts: [{ name, parts: [part] }] };
}

const STATUSES = ['open', 'paid', 'overdue'] as const;

export async function lookupInvoice(ctx: HandlerContext): Promise<HandlerResult> {
  const invoiceNumber = invoiceNumberOf(ctx);
  if (!invoiceNumber) return { state: 'input-required', text: 'Which invoice? Send its number, for example INV-20931.' };
  const n = digits(invoiceNumber);
  const due = new Date(Date.UTC(2026, n % 12, 1 + (n % 28)));
  return output(ctx, 'invoice', {
    invoiceNumber,
    status: STATUSES[n % STATUSES.length],
    amount: { value: ((n * 37) % 100000) / 100 + 100, currency: 'EUR' },
    dueDate: due.toISOString().slice(0, 10),
  });
}

/** The limit keys reconciliation understands (the generic ones are enforced by the SDK). */
export const RECONCILE_LIMITS = { max_pdf_pages: 'integer' } as const;

export async function reconcileInvoice(ctx: HandlerContext<typeof RECONCILE_LIMITS>): Promise<HandlerResult> {
  const invoiceNumber = invoiceNumberOf(ctx);
  if (!invoiceNumber)
    return {
      state: 'input-required',
      text: 'Which invoice should I reconcile? Send its number (INV-…) or the invoice PDF named after it.',
    };
  const maxPages = ctx.capability.limits.max_pdf_pages;
  const pdfs = ctx.message.parts.filter((p) => p.mediaType === 'application/pdf');
  // A fake page count (one page per 4 KB), enough to show the execution policy's limit applies.
  const pages = pdfs.reduce((sum, p) => sum + Math.max(1, Math.ceil(((p.raw?.length ?? 0) * 3) / 4 / 4096)), 0);
  if (typeof maxPages === 'number' && pages > maxPages)
    return { state: 'rejected', text: `the PDF has about ${pages} pages; this capability accepts at most ${maxPages}` };
  // Progress is stored on the task and streamed to SendStreamingMessage / SubscribeToTask callers.
  await ctx.updates.progress(`fetching the purchase order for ${invoiceNumber} from the ERP`);
  const erp = await ctx.tools.call<ErpAnswer>(ERP_TOOL, { invoiceNumber });
  await ctx.updates.progress(`matching ${erp.lines.length} invoice lines against ${erp.purchaseOrder}`);
  const n = digits(invoiceNumber);
  // The invoice differs from the PO on one line, chosen by the invoice number.
  const differences = erp.lines
    .filter((l) => l.line === 1 + (n % erp.lines.length))
    .map((l) => ({ line: l.line, field: 'quantity', invoice: l.quantity + 1, purchaseOrder: l.quantity }));
  return output(ctx, 'reconciliation', {
    invoiceNumber,
    purchaseOrder: erp.purchaseOrder,
    matched: differences.length === 0,
    differences,
    erpServedFor: erp.servedFor,
  });
}

export function registerFinanceHandlers(registry: HandlerRegistry): HandlerRegistry {
  return registry
    .register(LOOKUP_HANDLER, lookupInvoice, { shape: { keys: ['invoiceNumber'] }, outputModes: ['application/json', 'text/plain'] })
    .register(RECONCILE_HANDLER, reconcileInvoice, {
      shape: { keys: ['invoiceNumber', 'purchaseOrder'] },
      limits: RECONCILE_LIMITS,
      outputModes: ['application/json', 'text/plain'],
    });
}
