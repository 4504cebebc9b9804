// Reading one uploaded file out of a multipart/form-data request as it streams in, and passing
// its bytes on (to storage) as they come, never holding the file in memory. The declared type is
// checked from the part's headers before any byte is read, the leading bytes against it as soon
// as they arrive, and the size against the kind's limit chunk by chunk: a refused upload is
// answered at once, without waiting for (or keeping) the rest of the body.
import { pipeline, type Readable, Transform } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.ts';
import { checkSignature, type DeclaredMedia, declaredMedia, SIGNATURE_BYTES } from './media-formats.ts';
import { type EdgeScan, EdgeScanner } from './media-structure.ts';

/** The one form field that carries the file. */
export const FILE_FIELD = 'file';

/**
 * An upload once its bytes have gone by (to where `accept` put them), before the deeper checks:
 * what was declared, the bytes' size and their edges (for the hidden-content check), and what
 * `accept` made of them.
 */
export interface ReceivedUpload<T> {
  declared: DeclaredMedia;
  size: number;
  scan: EdgeScan;
  stored: T;
}

/** Where the checked bytes of an upload go as they arrive (storage); resolves once they are all there. */
export type AcceptUpload<T> = (declared: DeclaredMedia, file: Readable) => Promise<T>;

const FORM_HINT = `send multipart/form-data with exactly one part: the file, in the field '${FILE_FIELD}'`;

function invalidForm(problem: string): AppError {
  return new AppError('invalid_request', `${problem}: ${FORM_HINT}`, [{ field: FILE_FIELD, message: problem }]);
}

/** Errors of the multipart parser (limits, malformed bodies) as our codes. */
function formError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return invalidForm('the form has more than one part');
  }
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new AppError('payload_too_large', 'The file is larger than the upload limit');
  }
  const message = err instanceof Error ? err.message : String(err);
  return invalidForm(`the multipart body could not be read (${message})`);
}

/**
 * The file stream checked as it passes: the size against the declared kind's limit (413 as soon
 * as it is passed; the multipart parser's own limit truncates the stream at the largest kind's),
 * the leading bytes against the declared type (422 on a bad signature), and the edges and any
 * `<script` noted for the hidden-content check. Nothing is kept but a few KiB.
 */
function checked(stream: Readable & { truncated?: boolean }, declared: DeclaredMedia) {
  const scanner = new EdgeScanner();
  let size = 0;
  let head: Buffer[] = [];
  let signatureChecked = false;
  const checker = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > declared.maxBytes) return done(tooLarge(declared));
      scanner.push(chunk);
      if (!signatureChecked) {
        head.push(chunk);
        if (size >= SIGNATURE_BYTES) {
          signatureChecked = true;
          const leading = Buffer.concat(head);
          head = [];
          try {
            checkSignature(leading, declared);
          } catch (err) {
            return done(err as Error);
          }
        }
      }
      done(null, chunk);
    },
    flush(done) {
      if (stream.truncated) return done(tooLarge(declared));
      if (!signatureChecked) {
        try {
          checkSignature(Buffer.concat(head), declared);
        } catch (err) {
          return done(err as Error);
        }
      }
      done();
    },
  });
  // What went wrong with the part itself (a body cut short, a malformed form): the form's fault.
  let partFailure: Error | undefined;
  stream.once('error', (err) => {
    partFailure ??= err;
  });
  // The parser stops passing data on at its own limit but reads the body on to the end; failing
  // the stream at once answers now instead.
  stream.once('limit', () => checker.destroy(tooLarge(declared)));
  // Either side failing ends both: the storage write sees the error and stores nothing.
  pipeline(stream, checker, () => undefined);
  return {
    file: checker as Readable,
    size: () => size,
    scan: () => scanner.result(),
    partFailure: () => partFailure,
  };
}

function tooLarge(declared: DeclaredMedia): AppError {
  const mib = declared.maxBytes / (1024 * 1024);
  return new AppError(
    'payload_too_large',
    `The ${declared.kind} is larger than the limit of ${mib} MiB (${declared.maxBytes} bytes) for ${declared.kind} uploads`,
  );
}

/**
 * Receives the single file of an upload request, streaming its checked bytes to `accept`. Anything
 * but exactly one file part in the field `file` is a 400; the declared type, the leading bytes and
 * the size are checked while streaming. When the form turns out wrong after the file was accepted,
 * `discard` is given what `accept` made.
 */
export async function receiveUpload<T>(
  request: FastifyRequest,
  accept: AcceptUpload<T>,
  discard: (stored: T) => Promise<void>,
): Promise<ReceivedUpload<T>> {
  if (!request.isMultipart()) throw invalidForm('the body is not multipart/form-data');
  const parts = request.parts();
  let received: ReceivedUpload<T> | undefined;
  try {
    for await (const part of parts) {
      if (received || part.type !== 'file') throw invalidForm('the form has more than one part');
      if (part.fieldname !== FILE_FIELD) {
        throw invalidForm(`the file is in the field '${part.fieldname.slice(0, 100)}', not '${FILE_FIELD}'`);
      }
      try {
        const declared = declaredMedia(part.mimetype, part.filename);
        const file = checked(part.file, declared);
        let stored: T;
        try {
          stored = await accept(declared, file.file);
        } catch (err) {
          // What the checks or the form refused is theirs to word; anything else (storage) is not the form's.
          if (err instanceof AppError || isParserError(err)) throw err;
          // An error the checked stream carries came from the part (a body cut short): the form's.
          throw file.partFailure() ?? file.file.errored ?? new AcceptFailed(err);
        }
        received = { declared, size: file.size(), scan: file.scan(), stored };
      } finally {
        // Stops the parser from reading on for a file we gave up on.
        if (!part.file.readableEnded) part.file.destroy();
      }
    }
  } catch (err) {
    if (received) await discard(received.stored);
    if (err instanceof AcceptFailed) throw err.cause;
    throw formError(err);
  }
  if (!received) throw invalidForm('the form has no file');
  return received;
}

/** A failure of where the bytes went, passed on as it is. */
class AcceptFailed extends Error {
  constructor(cause: unknown) {
    super('the upload could not be stored', { cause });
  }
}

function isParserError(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('FST_');
}
