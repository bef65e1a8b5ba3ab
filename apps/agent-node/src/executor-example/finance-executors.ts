/**
 * The second example agent (issue 19, ADR 0163): the finance agent's two capabilities written as
 * ordinary `@a2a-js/sdk` AgentExecutors, the way a team that already has SDK agents writes them:
 * they read the SDK's RequestContext, publish Task / TaskStatusUpdateEvent /
 * TaskArtifactUpdateEvent on the SDK's event bus, and know nothing of the node-sdk except
 * `nodeContextOf`, which hands them the downscoped tools and the capability's limits. Registered
 * with `HandlerRegistry.registerExecutor`, they get the registry's card, routing, enforcement and
 * usage counting, and answer exactly what the native finance handlers answer.
 */
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { HandlerRegistry, nodeContextOf } from '@cp/node-sdk';
import { digits, ERP_TOOL, type ErpAnswer } from '../finance/erp-tool';
import { LOOKUP_HANDLER, RECONCILE_HANDLER, RECONCILE_LIMITS } from '../finance/finance-handlers';

type Json = Record<string, unknown>;
interface WirePart {
  text?: string;
  raw?: string;
  data?: unknown;
  filename?: string;
  mediaType?: string;
}

const INVOICE = /\bINV-\d{3,12}\b/i;
const STATUSES = ['open', 'paid', 'overdue'] as const;

function partsOf(rc: RequestContext): WirePart[] {
  return (Message.toJSON(rc.userMessage) as { parts?: WirePart[] }).parts ?? [];
}

/** From a data part's invoiceNumber, the text, or a file name such as INV-20931.pdf. */
function invoiceNumber(parts: WirePart[]): string | undefined {
  for (const p of parts) {
    const d = p.data as { invoiceNumber?: unknown } | undefined;
    if (d && typeof d.invoiceNumber === 'string' && INVOICE.test(d.invoiceNumber)) return d.invoiceNumber.toUpperCase();
  }
  const text = parts.map((p) => p.text ?? '').join('\n');
  const inText = INVOICE.exec(text)?.[0];
  if (inText) return inText.toUpperCase();
  for (const p of parts) {
    const inName = p.filename ? INVOICE.exec(p.filename)?.[0] : undefined;
    if (inName) return inName.toUpperCase();
  }
  return undefined;
}

/** A small helper most SDK agents have in some form: one status event. */
function status(bus: ExecutionEventBus, rc: RequestContext, state: string, text?: string): void {
  const message = text
    ? {
        messageId: `${rc.taskId}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
        role: 'ROLE_AGENT',
        parts: [{ text }],
        taskId: rc.taskId,
        contextId: rc.contextId,
      }
    : undefined;
  bus.publish(
    AgentEvent.statusUpdate(
      TaskStatusUpdateEvent.fromJSON({ taskId: rc.taskId, contextId: rc.contextId, status: { state, ...(message ? { message } : {}) } }),
    ),
  );
}

function artifact(bus: ExecutionEventBus, rc: RequestContext, name: string, value: Json): void {
  const part =
    nodeContextOf(rc).outputMode === 'application/json'
      ? { data: value, mediaType: 'application/json' }
      : { text: JSON.stringify(value, null, 2), mediaType: 'text/plain' };
  bus.publish(
    AgentEvent.artifactUpdate(
      TaskArtifactUpdateEvent.fromJSON({
        taskId: rc.taskId,
        contextId: rc.contextId,
        artifact: { artifactId: `${rc.taskId}-${name}`, name, parts: [part] },
        lastChunk: true,
      }),
    ),
  );
}

function announce(bus: ExecutionEventBus, rc: RequestContext): void {
  bus.publish(AgentEvent.task(Task.fromJSON({ id: rc.taskId, contextId: rc.contextId, status: { state: 'TASK_STATE_SUBMITTED' } })));
}

const canceling: AgentExecutor['cancelTask'] = async (taskId, bus) => {
  bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, status: { state: 'TASK_STATE_CANCELED' } })));
  bus.finished();
};

export class InvoiceLookupExecutor implements AgentExecutor {
  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    announce(bus, rc);
    const number = invoiceNumber(partsOf(rc));
    if (!number) {
      status(bus, rc, 'TASK_STATE_INPUT_REQUIRED', 'Which invoice? Send its number, for example INV-20931.');
      return bus.finished();
    }
    const n = digits(number);
    const due = new Date(Date.UTC(2026, n % 12, 1 + (n % 28)));
    artifact(bus, rc, 'invoice', {
      invoiceNumber: number,
      status: STATUSES[n % STATUSES.length],
      amount: { value: ((n * 37) % 100000) / 100 + 100, currency: 'EUR' },
      dueDate: due.toISOString().slice(0, 10),
    });
    status(bus, rc, 'TASK_STATE_COMPLETED');
    bus.finished();
  }

  cancelTask = canceling;
}

export class ReconcileExecutor implements AgentExecutor {
  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    announce(bus, rc);
    const parts = partsOf(rc);
    const number = invoiceNumber(parts);
    if (!number) {
      status(
        bus,
        rc,
        'TASK_STATE_INPUT_REQUIRED',
        'Which invoice should I reconcile? Send its number (INV-…) or the invoice PDF named after it.',
      );
      return bus.finished();
    }
    const node = nodeContextOf(rc);
    const maxPages = (node.capability.limits as { max_pdf_pages?: number }).max_pdf_pages;
    const pages = parts
      .filter((p) => p.mediaType === 'application/pdf')
      .reduce((sum, p) => sum + Math.max(1, Math.ceil(((p.raw?.length ?? 0) * 3) / 4 / 4096)), 0);
    if (typeof maxPages === 'number' && pages > maxPages) {
      status(bus, rc, 'TASK_STATE_REJECTED', `the PDF has about ${pages} pages; this capability accepts at most ${maxPages}`);
      return bus.finished();
    }
    status(bus, rc, 'TASK_STATE_WORKING', `fetching the purchase order for ${number} from the ERP`);
    // The tool call carries a credential downscoped to the caller (token exchange at the control plane).
    const erp = await node.tools.call<ErpAnswer>(ERP_TOOL, { invoiceNumber: number });
    status(bus, rc, 'TASK_STATE_WORKING', `matching ${erp.lines.length} invoice lines against ${erp.purchaseOrder}`);
    const n = digits(number);
    const differences = erp.lines
      .filter((l) => l.line === 1 + (n % erp.lines.length))
      .map((l) => ({ line: l.line, field: 'quantity', invoice: l.quantity + 1, purchaseOrder: l.quantity }));
    artifact(bus, rc, 'reconciliation', {
      invoiceNumber: number,
      purchaseOrder: erp.purchaseOrder,
      matched: differences.length === 0,
      differences,
      erpServedFor: erp.servedFor,
    });
    status(bus, rc, 'TASK_STATE_COMPLETED');
    bus.finished();
  }

  cancelTask = canceling;
}

/** The same handler names, shapes and limits as the native finance handlers: the manifests need no change. */
export function registerFinanceExecutors(registry: HandlerRegistry): HandlerRegistry {
  return registry
    .registerExecutor(LOOKUP_HANDLER, new InvoiceLookupExecutor(), {
      shape: { keys: ['invoiceNumber'] },
      outputModes: ['application/json', 'text/plain'],
    })
    .registerExecutor(RECONCILE_HANDLER, new ReconcileExecutor(), {
      shape: { keys: ['invoiceNumber', 'purchaseOrder'] },
      limits: RECONCILE_LIMITS,
      outputModes: ['application/json', 'text/plain'],
    });
}
