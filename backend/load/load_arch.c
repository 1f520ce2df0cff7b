/* Whether a library file is for this machine's architecture (load_internal.h):
 * its ELF header's class and machine, read before dlopen, so a library
 * cross-compiled for another architecture (an -mtriple target) is refused
 * with a message that says so and how to run it, not dlopen's "wrong ELF
 * class" or "cannot open shared object". */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "irm/error.h"
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

int irm_load_check_arch_(const char *path) {
#ifdef HOST_MACHINE_
  unsigned char h[sizeof(Elf64_Ehdr)];
  FILE *f = fopen(path, "rb");
  size_t got = f ? fread(h, 1, sizeof h, f) : 0;
  if (f) fclose(f);
  /* not ELF or too short: dlopen's own message says what is wrong */
  if (got < 20 || memcmp(h, ELFMAG, SELFMAG) != 0) return IRM_OK;
  /* e_machine sits at 18 in both classes, in the file's byte order */
  unsigned machine = h[EI_DATA] == ELFDATA2MSB ? (unsigned)h[18] << 8 | h[19] : (unsigned)h[19] << 8 | h[18];
  if (machine == HOST_MACHINE_) return IRM_OK;
  const char *arch = machine_name(machine), *host = machine_name(HOST_MACHINE_);
  char number[32];
  snprintf(number, sizeof number, "ELF machine %u", machine);
  const char *name = arch ? arch : number;
  return irm_error(IRM_EVALUE,
                   "library '%s' is built for %s, not this machine's %s: it cannot be loaded here. Run it on "
                   "such a machine, or through `irm run DIR`, which runs it under qemu-%s",
                   path, name, host, arch ? arch : "<arch>");
#else
  (void)path;
  return IRM_OK;
#endif
}
