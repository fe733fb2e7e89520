/* ops_syms.h — the op functions a built op library exports, read from its ELF dynamic symbol
 * table (what dlsym can find), so that the op tests can assert they cover every exported
 * cl1_op_* and that both backends export the same set; shared by test_ops_coverage (CPU) and
 * gpu/test_ops_gpu. */
#ifndef CL1_TEST_OPS_SYMS_H
#define CL1_TEST_OPS_SYMS_H
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPS_SYMS_MAX 128
#define OPS_SYM_LEN 64

typedef struct {
  int n;
  char name[OPS_SYMS_MAX][OPS_SYM_LEN];
} ops_syms;

static int ops_syms_cmp(const void *a, const void *b) { return strcmp(a, b); }

/* The defined global functions of the 64-bit ELF shared object `path` whose names start with
 * `prefix`, sorted, into *out; 0, or -1 when the file cannot be read or parsed. */
static inline int ops_syms_read(const char *path, const char *prefix, ops_syms *out) {
  out->n = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  unsigned char *buf = NULL;
  long size = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
  if (size > (long)sizeof(Elf64_Ehdr) && !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)size)) &&
      fread(buf, 1, (size_t)size, f) != (size_t)size)
    free(buf), buf = NULL;
  fclose(f);
  if (!buf) return -1;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
  int rc = -1;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shoff + (Elf64_Off)eh->e_shnum * sizeof(Elf64_Shdr) > (Elf64_Off)size)
    goto done;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr *st = &sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > (Elf64_Off)size ||
        st->sh_offset + st->sh_size > (Elf64_Off)size || !sh[i].sh_entsize)
      goto done;
    const Elf64_Sym *sym = (const Elf64_Sym *)(buf + sh[i].sh_offset);
    const char *str = (const char *)(buf + st->sh_offset);
    for (size_t k = 0; k < sh[i].sh_size / sh[i].sh_entsize; k++) {
      int bind = ELF64_ST_BIND(sym[k].st_info);
      if (sym[k].st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC ||
          (bind != STB_GLOBAL && bind != STB_WEAK) ||
          ELF64_ST_VISIBILITY(sym[k].st_other) != STV_DEFAULT || sym[k].st_name >= st->sh_size)
        continue;
      const char *name = str + sym[k].st_name;
      if (strncmp(name, prefix, strlen(prefix)) || strlen(name) >= OPS_SYM_LEN) continue;
      if (out->n == OPS_SYMS_MAX) goto done;
      strcpy(out->name[out->n++], name);
    }
    rc = 0;
  }
  qsort(out->name, (size_t)out->n, OPS_SYM_LEN, ops_syms_cmp);
done:
  free(buf);
  return rc;
}

/* 1 when `name` is in the sorted set. */
static inline int ops_syms_has(const ops_syms *s, const char *name) {
  return bsearch(name, s->name, (size_t)s->n, OPS_SYM_LEN, ops_syms_cmp) != NULL;
}
#endif
