/* A stand-in for Windows' bcryptprimitives.dll, which Wine 8.0 lacks and
 * Go's runtime loads at start (ProcessPrng): random bytes from
 * advapi32's RtlGenRandom (SystemFunction036). For running tests under
 * Wine only; Windows has the real one. */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n)) return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
