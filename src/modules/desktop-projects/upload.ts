// Reading one uploaded file out of a multipart/form-data request as it streams in. The declared
// type is checked from the part's headers before any byte is read, the leading bytes against
// it as soon as they arrive, and the size against the kind's limit chunk by chunk: a refused
// upload is answered at once, without waiting for (or keeping) the rest of the body.
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.ts';
import { checkSignature, type DeclaredMedia, declaredMedia, SIGNATURE_BYTES } from './media-formats.ts';

/** The one form field that carries the file. */
export const FILE_FIELD = 'file';

/** An upload read in full, before the deeper checks. */
export interface ReceivedUpload {
  declared: DeclaredMedia;
  bytes: Buffer;
}

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
 * Reads the file stream into memory up to the declared kind's limit, checking the signature as
 * soon as the first bytes are in. Throws 413 when the file passes the limit (the multipart
 * parser's own limit truncates the stream at the largest kind's limit), 422 on a bad signature.
 */
async function readCapped(stream: Readable & { truncated?: boolean }, declared: DeclaredMedia): Promise<Buffer> {
  // The parser stops passing data on at its own limit but reads the body on to the end; failing
  // the stream at once answers now instead.
  stream.once('limit', () => stream.destroy(tooLarge(declared)));
  const chunks: Buffer[] = [];
  let size = 0;
  let signatureChecked = false;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > declared.maxBytes) throw tooLarge(declared);
    chunks.push(chunk);
    if (!signatureChecked && size >= SIGNATURE_BYTES) {
      checkSignature(Buffer.concat(chunks), declared);
      signatureChecked = true;
    }
  }
  if (stream.truncated) throw tooLarge(declared);
  const bytes = Buffer.concat(chunks, size);
  if (!signatureChecked) checkSignature(bytes, declared);
  return bytes;
}

function tooLarge(declared: DeclaredMedia): AppError {
  const mib = declared.maxBytes / (1024 * 1024);
  return new AppError(
    'payload_too_large',
    `The ${declared.kind} is larger than the limit of ${mib} MiB (${declared.maxBytes} bytes) for ${declared.kind} uploads`,
  );
}

/**
 * Receives the single file of an upload request. Anything but exactly one file part in the
 * field `file` is a 400; the declared type and the leading bytes are checked while streaming.
 */
export async function receiveUpload(request: FastifyRequest): Promise<ReceivedUpload> {
  if (!request.isMultipart()) throw invalidForm('the body is not multipart/form-data');
  const parts = request.parts();
  let received: ReceivedUpload | undefined;
  try {
    for await (const part of parts) {
      if (received || part.type !== 'file') throw invalidForm('the form has more than one part');
      if (part.fieldname !== FILE_FIELD) {
        throw invalidForm(`the file is in the field '${part.fieldname.slice(0, 100)}', not '${FILE_FIELD}'`);
      }
      try {
        const declared = declaredMedia(part.mimetype, part.filename);
        received = { declared, bytes: await readCapped(part.file, declared) };
      } finally {
        // Stops the parser from reading on for a file we gave up on.
        if (!part.file.readableEnded) part.file.destroy();
      }
    }
  } catch (err) {
    throw formError(err);
  }
  if (!received) throw invalidForm('the form has no file');
  return received;
}
