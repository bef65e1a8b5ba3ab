import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';
import type { Type } from '@nestjs/common';
import { z } from 'zod';
import { CommonError, CommonErrorCode } from '../errors';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 50;

@ObjectType()
export class PageInfo {
  @Field(() => String, { nullable: true, description: 'Pass as `after` to get the next page.' })
  endCursor!: string | null;

  @Field()
  hasNextPage!: boolean;
}

@InputType({ description: `Cursor pagination: up to ${MAX_PAGE_SIZE} items after the cursor of a previous page.` })
export class PageInput {
  @Field(() => Int, { nullable: true, defaultValue: DEFAULT_PAGE_SIZE })
  first?: number;

  @Field(() => String, { nullable: true })
  after?: string | null;
}

export interface Page<T> {
  nodes: T[];
  pageInfo: PageInfo;
}

/** `XConnection { nodes, pageInfo }`: the one list shape of the admin API. */
export function Connection<T>(node: Type<T>, name: string): Type<Page<T>> {
  @ObjectType(name)
  class ConnectionType implements Page<T> {
    @Field(() => [node])
    nodes!: T[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;
  }
  return ConnectionType;
}

/** Opaque cursors: base64url of a JSON key tuple, so clients cannot depend on their shape. */
export function encodeCursor(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

const cursorSchema = z.array(z.union([z.string(), z.number()])).min(1);

export function decodeCursor(cursor: string | null | undefined): (string | number)[] | undefined {
  if (!cursor) return undefined;
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw new CommonError(CommonErrorCode.InvalidInput, 'the "after" cursor is not one this API issued', {
      validationErrors: [{ path: '$.page.after', message: 'invalid cursor' }],
    });
  }
}

export function pageSize(page: PageInput | undefined): number {
  const first = page?.first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE) {
    throw new CommonError(CommonErrorCode.InvalidInput, `"first" must be between 1 and ${MAX_PAGE_SIZE}`, {
      validationErrors: [{ path: '$.page.first', message: `must be between 1 and ${MAX_PAGE_SIZE}` }],
    });
  }
  return first;
}

/** Repositories fetch `size + 1` rows; this trims the extra one and builds pageInfo. */
export function toPage<T>(rows: T[], size: number, cursorOf: (row: T) => unknown[]): Page<T> {
  const nodes = rows.slice(0, size);
  const last = nodes.at(-1);
  return { nodes, pageInfo: { hasNextPage: rows.length > size, endCursor: last === undefined ? null : encodeCursor(cursorOf(last)) } };
}
