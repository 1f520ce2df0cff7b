/* Whether a library file is for this machine's architecture (runtime.h,
 * load_internal.h): its ELF header's machine, read before dlopen, so a
 * library cross-compiled for another architecture (an -mtriple target) is
 * refused with a message that says so and how to run it, not dlopen's
 * "wrong ELF class" or "cannot open shared object"; irm run reads it to
 * choose qemu. */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "irm/error.h"
#include "irm/runtime.h"
#include "load/load_internal.h"

#if defined(__x86_64__)
#define HOST_MACHINE_ EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE_ EM_AARCH64
#elif defined(__i386__)
#define HOST_MACHINE_ EM_386
#elif defined(__arm__)
#define HOST_MACHINE_ EM_ARM
#elif defined(__riscv)
#define HOST_MACHINE_ EM_RISCV
#elif defined(__powerpc64__)
#define HOST_MACHINE_ EM_PPC64
#else
#define HOST_MACHINE_ 0u /* unknown: every ELF file counts as this machine's */
#endif

/* The architecture an ELF machine number names, as triples and qemu-user
 * spell it; NULL for one irm does not know. */
static const char *machine_name(unsigned m) {
  switch (m) {
  case EM_X86_64: return "x86_64";
  case EM_AARCH64: return "aarch64";
  case EM_386: return "i386";
  case EM_ARM: return "arm";
  case EM_RISCV: return "riscv64";
  case EM_PPC64: return "ppc64le";
  default: return NULL;
  }
}

/* The file's ELF machine; 0 when it is no ELF or cannot be read. */
static unsigned elf_machine(const char *path) {
  unsigned char h[20];
  FILE *f = fopen(path, "rb");
  size_t got = f ? fread(h, 1, sizeof h, f) : 0;
  if (f) fclose(f);
  if (got < sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0) return 0;
  /* e_machine sits at 18 in both classes, in the file's byte order */
  return h[EI_DATA] == ELFDATA2MSB ? (unsigned)h[18] << 8 | h[19] : (unsigned)h[19] << 8 | h[18];
}

void irm_runtime_library_arch(const char *path, const char **arch, int *native) {
  unsigned machine = path ? elf_machine(path) : 0;
  if (arch) *arch = machine_name(machine);
  if (native) *native = !machine || !HOST_MACHINE_ || machine == HOST_MACHINE_;
}

int irm_load_check_arch_(const char *path) {
  const char *arch = NULL, *host = machine_name(HOST_MACHINE_);
  int native = 1;
  irm_runtime_library_arch(path, &arch, &native);
  if (native) return IRM_OK;
  return irm_error(IRM_EVALUE,
                   "library '%s' is built for %s, not this machine's %s: it cannot be loaded here. Run it on "
                   "such a machine, or through `irm run DIR`, which runs it under qemu-%s",
                   path, arch ? arch : "another architecture", host ? host : "", arch ? arch : "<arch>");
}
