// What the server says it can do (uploads and their largest size, the largest board, ...): its
// `/healthz` answer, read before each hello.

/** The server's `/healthz` answer; undefined when it answers with an error status. Throws when it cannot be reached within 2 s. */
export async function readCapabilities() {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 2000);
  try {
    const response = await fetch("/healthz", { cache: "no-store", signal: controller.signal });
    if (!response.ok) return undefined;
    return (await response.json()) || {};
  } finally {
    clearTimeout(timer);
  }
}
