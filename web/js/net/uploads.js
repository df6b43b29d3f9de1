// Uploads to the server's file endpoint (docs/PROTOCOL.md, "HTTP endpoints"): an image for a card
// dropped from outside, or any file attached to a card (`as=attachment`). The server answers where
// it serves the file, relative to itself (/files/<board>/<sha256>.<ext>), so the board shows it
// whatever host name or proxy it is opened through.

/**
 * Sends `file` to the board's upload endpoint and returns the server's answer {url, type, bytes,
 * image}. Throws an Error whose message says what went wrong (the server's own sentence when it
 * refused the file).
 * @param {{board: string, key: string | null, device?: string | null, capabilities(): object}} upload
 *   `device`: an invited person's device key (issue 45), sent when there is no key
 * @param {File | Blob} file
 * @param {{asAttachment?: boolean}} options
 */
export async function uploadFile(upload, file, { asAttachment = false } = {}) {
  const limit = upload.capabilities().uploadMaxBytes;
  if (!limit) throw new Error("this server does not take uploads (it was started with --max-upload-bytes 0)");
  if (file.size > limit) throw new Error(`${file.name || "the file"} is larger than the server's limit of ${sizeInMiB(limit)}`);
  const query = new URLSearchParams();
  if (upload.key) query.set("key", upload.key);
  else if (upload.device) query.set("device", upload.device);
  if (asAttachment) query.set("as", "attachment");
  const response = await fetch(`/api/boards/${encodeURIComponent(upload.board)}/files?${query}`, {
    method: "POST",
    headers: { "Content-Type": file.type || "application/octet-stream" },
    body: file,
  });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    throw new Error(body.message || `the upload failed (${response.status})`);
  }
  const answer = await response.json();
  if (typeof answer.url !== "string" || !answer.url.startsWith("/files/")) throw new Error("the server answered the upload without a file URL");
  return answer;
}

/** Where to download an attached file under its own name. */
export const downloadUrl = (attachment) => `${attachment.url}?${new URLSearchParams({ name: attachment.name })}`;

const sizeInMiB = (bytes) => `${Math.round((bytes / 1048576) * 10) / 10} MiB`;
