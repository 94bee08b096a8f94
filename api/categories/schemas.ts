import { z } from '@hono/zod-openapi';
import { requiredText, Timestamp, Uuid } from '../schemas.ts';
import { CATEGORY, CREATE_CATEGORY, UPDATE_CATEGORY } from './examples.ts';

export const CategoryRecord = z
  .object({
    id: Uuid,
    name: z.string(),
    parent_id: Uuid.nullable(),
    sort_order: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Category', { example: CATEGORY });

export type CategoryRecord = z.infer<typeof CategoryRecord>;

const CategoryFields = z.object({
  name: requiredText(120),
  parent_id: Uuid.nullable().optional().openapi({ description: 'A category of this shop; null for a top-level category.' }),
  sort_order: z.number().int().min(-1_000_000).max(1_000_000).optional().openapi({ description: 'Lists are ordered by it, then by id. Default 0.' }),
});

export const CreateCategoryBody = CategoryFields.openapi('CreateCategory', { example: CREATE_CATEGORY });
export const UpdateCategoryBody = CategoryFields.partial().openapi('UpdateCategory', { example: UPDATE_CATEGORY });
export type UpdateCategoryBody = z.infer<typeof UpdateCategoryBody>;
