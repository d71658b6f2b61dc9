/** What a file-system error on a user-given path means, in the words pathError uses ("no such file"). */
export function pathProblem(error: unknown, access: 'write' | 'read' = 'write'): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reading: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'is not readable (permission denied)',
    EPERM: 'is not readable (operation not permitted)',
  };
  const written: Record<string, string> = {
    ENOENT: 'its folder does not exist',
    ENOTDIR: 'a part of it is not a folder',
    EISDIR: 'is a folder, not a file',
    EACCES: 'is not writable (permission denied)',
    EPERM: 'is not writable (operation not permitted)',
    EROFS: 'is on a read-only file system',
    ENAMETOOLONG: 'is too long a name',
    ELOOP: 'has too many levels of symbolic links',
    ENOSPC: 'no space left on the device',
  };
  const what = access === 'read' ? { ...written, ...reading } : written;
  return what[code ?? ''] ?? (error as Error).message;
}
