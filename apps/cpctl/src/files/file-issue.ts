/** A problem in one file, at a JSON path inside it (`$.skill.name`, `$[2].id`) or a YAML position. */
export interface FileIssue {
  file: string;
  path: string;
  message: string;
}

export const formatIssue = (i: FileIssue) => `${i.file}: ${i.path}: ${i.message}`;
