/* ProcessPrng, for Wine releases older than 9 that lack bcryptprimitives.dll
 * (Windows 10 and later have it): Go's runtime and Rust's standard library
 * import it. Fills the buffer from RtlGenRandom (advapi32's SystemFunction036). */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    len -= chunk;
  }
  return TRUE;
}
