/*
 * Native frames symbolicated by build id, through elfutils' libdwfl.
 *
 * The index: every ELF file under the directories given (their files and
 * their .build-id trees, symlinks to files followed, symlinks to
 * directories not), by its GNU build id (the NT_GNU_BUILD_ID note), the
 * one with debug info kept where several share an id (an unstripped
 * library and its stripped copy). Nothing else is trusted: a file named as
 * the frame's library but with another build id is the wrong build.
 *
 * A frame's pc, as a tombstone writes it, is the ELF file's own address
 * (unwindstack's rel_pc: the load bias taken off), so each file is
 * reported to its own Dwfl at base 0 with its p_vaddr added: the
 * addresses of the debug info are then the tombstone's.
 *
 * The lines of a pc, as addr2line -i gives them: the innermost function
 * (an inlined one, or the function itself) at the line table's file and
 * line; then, for each inlined scope around the pc from the inside out,
 * the function it was inlined into, at the inlined scope's DW_AT_call_file
 * and DW_AT_call_line. Without DWARF, the function of the symbol table
 * (.symtab, or .dynsym of a stripped file) alone.
 *
 * Lookups are cached by file and pc: the frames of a tombstone's threads
 * repeat (many threads wait in the same few functions).
 */
#include <dirent.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* elf.h's EV_NONE (an ELF version) is not the evidence's (a field absent). */
enum { LIBELF_VERSION = EV_CURRENT };
#undef EV_NONE
#undef EV_CURRENT

#include "symbolize.h"

const char SYM_NO_BUILD_ID[] = "the tombstone writes no build id for its library";
const char SYM_NOT_FOUND[] = "no file of the symbols has its build id";
const char SYM_NAME_MISMATCH[] = "a file of the symbols has its library's name but another build id "
				 "(another build): not used";
const char SYM_NO_DEBUG_INFO[] = "its library's file has no symbol or line for this address";

#define BUILD_ID_HEX_MAX 128 /* 64 bytes of id; GNU ids are 20 */
#define WALK_DEPTH_MAX 8
#define INLINE_DEPTH_MAX 64

/* An address range of a function of the debug info: its DIE. */
struct sym_fn {
	uint64_t low, high;  /* DWARF addresses, [low, high) */
	Dwarf_Off die;
};

/* One ELF file of the index. */
struct sym_file {
	char id[BUILD_ID_HEX_MAX + 1];
	char *path;
	const char *base;   /* in path */
	int debug;          /* it has .debug_info */
	Dwfl *dwfl;         /* opened at its first lookup */
	Dwfl_Module *mod;
	int failed;         /* libdwfl could not open it */
	struct sym_fn *fns; /* its functions' address ranges, sorted; at the first lookup */
	size_t nfns;
	int indexed;
};

/* A cached lookup. */
struct sym_hit {
	size_t file;        /* index + 1; 0: empty slot */
	uint64_t pc;
	struct frame_line *lines;
	size_t nlines;
};

struct symbols {
	struct sym_file *files;
	size_t nfiles;
	size_t *by_name;     /* file indexes sorted by base name */
	struct sym_hit *hits;
	size_t nhits, hits_cap; /* hits_cap a power of two */
};

static void set_err(char *err, size_t len, const char *fmt, const char *a, const char *b)
{
	if (len)
		snprintf(err, len, fmt, a, b);
}

/* The GNU build id of elf as lowercase hex into id; 1, or 0 if none. */
static int elf_build_id(Elf *elf, char id[BUILD_ID_HEX_MAX + 1], int *debug)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int found = 0;

	*debug = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && sh.sh_type != SHT_NOBITS &&
		    (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0))
			*debug = 1;
		if (sh.sh_type == SHT_NOTE && !found) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t off = 0, next, name_off, desc_off;
			GElf_Nhdr nh;

			while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 &&
				    nh.n_descsz > 0 && nh.n_descsz * 2 <= BUILD_ID_HEX_MAX) {
					const unsigned char *p = (const unsigned char *)d->d_buf + desc_off;
					size_t i;

					for (i = 0; i < nh.n_descsz; i++)
						sprintf(id + 2 * i, "%02x", p[i]);
					found = 1;
					break;
				}
				off = next;
			}
		}
	}
	return found;
}

/* Index the file at path if it is an ELF file with a build id. 0, or -1 on
 * ENOMEM. */
static int index_file(struct symbols *s, const char *path)
{
	char id[BUILD_ID_HEX_MAX + 1];
	unsigned char magic[4];
	struct sym_file *f;
	int fd, debug, got;
	size_t i;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (pread(fd, magic, 4, 0) != 4 || memcmp(magic, ELFMAG, 4) != 0) {
		close(fd);
		return 0;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	got = elf && elf_kind(elf) == ELF_K_ELF && elf_build_id(elf, id, &debug);
	elf_end(elf);
	close(fd);
	if (!got)
		return 0;
	for (i = 0; i < s->nfiles; i++) {
		if (strcmp(s->files[i].id, id) != 0)
			continue;
		if (debug && !s->files[i].debug) {
			char *p = strdup(path);

			if (!p)
				return -1;
			free(s->files[i].path);
			s->files[i].path = p;
			s->files[i].base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
			s->files[i].debug = 1;
		}
		return 0;
	}
	if (!(f = ev_grow((void **)&s->files, s->nfiles, sizeof(*f))))
		return -1;
	memset(f, 0, sizeof(*f));
	memcpy(f->id, id, sizeof(id));
	if (!(f->path = strdup(path)))
		return -1;
	f->base = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
	f->debug = debug;
	s->nfiles++;
	return 0;
}

/* Walk dir to WALK_DEPTH_MAX. 0, -1 on ENOMEM, -2 when the top directory
 * cannot be read (errno set). */
static int walk(struct symbols *s, const char *dir, int depth)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return depth == 0 ? -2 : 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		struct stat st, lst;
		char *path;
		size_t n;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n = strlen(dir) + strlen(e->d_name) + 2;
		if (!(path = malloc(n))) {
			rc = -1;
			break;
		}
		snprintf(path, n, "%s/%s", dir, e->d_name);
		if (lstat(path, &lst) == 0 && stat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				if (!S_ISLNK(lst.st_mode) && depth < WALK_DEPTH_MAX)
					rc = walk(s, path, depth + 1);
			} else if (S_ISREG(st.st_mode) && st.st_size >= 64) {
				rc = index_file(s, path);
			}
		}
		free(path);
	}
	closedir(d);
	return rc;
}

static const struct symbols *sort_ctx;

static int by_base(const void *a, const void *b)
{
	return strcmp(sort_ctx->files[*(const size_t *)a].base,
		      sort_ctx->files[*(const size_t *)b].base);
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct sym_file *)a)->id, ((const struct sym_file *)b)->id);
}

int symbols_open(char *const *dirs, size_t n, struct symbols **out, char *err, size_t errlen)
{
	struct symbols *s = calloc(1, sizeof(*s));
	size_t i;

	*out = NULL;
	if (!s) {
		set_err(err, errlen, "out of memory%s%s", "", "");
		return -1;
	}
	elf_version(LIBELF_VERSION);
	for (i = 0; i < n; i++) {
		int rc = walk(s, dirs[i], 0);

		if (rc == -2) {
			set_err(err, errlen, "--symbols '%s': %s", dirs[i], strerror(errno));
			symbols_close(s);
			return -1;
		}
		if (rc < 0) {
			set_err(err, errlen, "out of memory%s%s", "", "");
			symbols_close(s);
			return -1;
		}
	}
	if (s->nfiles)
		qsort(s->files, s->nfiles, sizeof(*s->files), by_id);
	s->by_name = malloc((s->nfiles ? s->nfiles : 1) * sizeof(*s->by_name));
	s->hits_cap = 1024;
	s->hits = calloc(s->hits_cap, sizeof(*s->hits));
	if (!s->by_name || !s->hits) {
		set_err(err, errlen, "out of memory%s%s", "", "");
		symbols_close(s);
		return -1;
	}
	for (i = 0; i < s->nfiles; i++)
		s->by_name[i] = i;
	sort_ctx = s;
	if (s->nfiles)
		qsort(s->by_name, s->nfiles, sizeof(*s->by_name), by_base);
	*out = s;
	return 0;
}

size_t symbols_files(const struct symbols *s)
{
	return s ? s->nfiles : 0;
}

static void lines_free(struct frame_line *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].function);
		free(v[i].file);
	}
	free(v);
}

void symbols_close(struct symbols *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nfiles; i++) {
		if (s->files[i].dwfl)
			dwfl_end(s->files[i].dwfl);
		free(s->files[i].fns);
		free(s->files[i].path);
	}
	for (i = 0; i < s->hits_cap; i++)
		if (s->hits[i].file)
			lines_free(s->hits[i].lines, s->hits[i].nlines);
	free(s->hits);
	free(s->files);
	free(s->by_name);
	free(s);
}

/* The file of build id, or NULL. */
static struct sym_file *find_id(struct symbols *s, const char *id)
{
	struct sym_file key;
	size_t n = strlen(id);

	if (n > BUILD_ID_HEX_MAX)
		return NULL;
	memcpy(key.id, id, n + 1);
	return bsearch(&key, s->files, s->nfiles, sizeof(*s->files), by_id);
}

/* Whether a file of the index has base name `base`. */
static int has_name(const struct symbols *s, const char *base)
{
	size_t lo = 0, hi = s->nfiles;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->files[s->by_name[mid]].base, base);

		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int library_is_app(const char *lib)
{
	static const char *const system[] = {
		"/system/", "/system_ext/", "/apex/", "/vendor/", "/product/", "/odm/",
	};
	size_t i, n = lib ? strlen(lib) : 0;

	if (!n || lib[0] == '<' || lib[0] == '[')
		return 0;
	if (starts(lib, "/data/app/") || starts(lib, "/data/data/") || starts(lib, "/data/user/"))
		return 1;
	if (strstr(lib, ".apk!") || (n > 4 && strcmp(lib + n - 4, ".apk") == 0))
		return 1;
	for (i = 0; i < sizeof(system) / sizeof(system[0]); i++)
		if (starts(lib, system[i]))
			return 0;
	return lib[0] != '/';
}

const char *library_base(const char *lib)
{
	const char *p;

	if (!lib || !*lib)
		return "?";
	p = strrchr(lib, '/');
	p = p && p[1] ? p + 1 : lib;
	if (strchr(p, '!') && strrchr(p, '!')[1])
		p = strrchr(p, '!') + 1;
	return p;
}

int frame_format(const struct frame *fr, size_t at, char *buf, size_t len)
{
	const char *lib = library_base(fr->library);
	size_t k, n;
	int w;

#define ADD(...)                                                              \
	do {                                                                  \
		w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, __VA_ARGS__); \
		n += w > 0 ? (size_t)w : 0;                                   \
	} while (0)
	n = 0;
	ADD("#%02" PRId64 " ", fr->index >= 0 ? fr->index : (int64_t)at);
	for (k = 0; k < fr->nlines; k++) {
		const struct frame_line *l = &fr->lines[k];

		ADD("%s%s", k ? ", inlined in " : "", l->function ? l->function : "?");
		if (l->file && l->line)
			ADD(" (%s:%" PRId64 ")", l->file, l->line);
		else if (l->file)
			ADD(" (%s)", l->file);
	}
	if (fr->nlines)
		ADD("  %s", lib);
	else
		ADD("%s +0x%" PRIx64 "%s%s%s", lib, fr->pc, fr->symbol ? " (" : "",
		    fr->symbol ? fr->symbol : "", fr->symbol ? ")" : "");
#undef ADD
	return (int)n;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static Dwfl_Module *file_module(struct sym_file *f)
{
	int fd;

	if (f->mod || f->failed)
		return f->mod;
	f->failed = 1;
	if (!(f->dwfl = dwfl_begin(&offline_callbacks)))
		return NULL;
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* dwfl takes the descriptor */
	f->mod = dwfl_report_elf(f->dwfl, f->base, f->path, fd, 0, true);
	if (!f->mod) {
		close(fd);
		return NULL;
	}
	dwfl_report_end(f->dwfl, NULL, NULL);
	f->failed = 0;
	return f->mod;
}

/* Append a line; -1 on ENOMEM. */
static int add_line(struct frame_line **v, size_t *n, const char *function, const char *file,
		    int line, int column)
{
	struct frame_line *nv = realloc(*v, (*n + 1) * sizeof(**v));
	struct frame_line *l;

	if (!nv)
		return -1;
	*v = nv;
	l = &nv[*n];
	memset(l, 0, sizeof(*l));
	l->line = line > 0 ? line : 0;
	l->column = column > 0 ? column : 0;
	if ((function && !(l->function = strdup(function))) || (file && !(l->file = strdup(file)))) {
		free(l->function);
		return -1;
	}
	(*n)++;
	return 0;
}

/* A scope's function name: its own or its abstract origin's (inlined
 * subroutines name their function there). */
static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *name = dwarf_diename(die);

	if (name)
		return name;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a))
		return dwarf_formstring(&a);
	return NULL;
}

static int add_fn(struct sym_file *f, uint64_t low, uint64_t high, Dwarf_Off die)
{
	struct sym_fn *fn;

	if (high <= low)
		return 0;
	if (!(fn = ev_grow((void **)&f->fns, f->nfns, sizeof(*fn))))
		return -1;
	*fn = (struct sym_fn){ low, high, die };
	f->nfns++;
	return 0;
}

/* The functions among parent's children (and in its namespaces and
 * classes, for C++), with each range of each. */
static int add_functions(struct sym_file *f, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;

	if (dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, start, end;
			ptrdiff_t o = 0;

			while ((o = dwarf_ranges(&c, o, &base, &start, &end)) > 0)
				if (add_fn(f, start, end, dwarf_dieoffset(&c)) != 0)
					return -1;
		} else if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			    tag == DW_TAG_structure_type) && depth < 16) {
			if (add_functions(f, &c, depth + 1) != 0)
				return -1;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int by_low(const void *a, const void *b)
{
	const struct sym_fn *x = a, *y = b;

	return x->low < y->low ? -1 : x->low > y->low;
}

/* Index f's functions by address, once: every compilation unit's top
 * level walked a single time, where dwarf_getscopes() would walk a unit
 * for each lookup. -1 on ENOMEM. */
static int index_functions(struct sym_file *f, Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;

	if (f->indexed)
		return 0;
	f->indexed = 1;
	while (dwarf_get_units(dw, cu, &cu, NULL, &type, &cudie, NULL) == 0)
		if ((type == DW_UT_compile || type == DW_UT_partial) && add_functions(f, &cudie, 0) != 0)
			return -1;
	if (f->nfns)
		qsort(f->fns, f->nfns, sizeof(*f->fns), by_low);
	return 0;
}

/* The function whose range holds a (a DWARF address), into *die. */
static int find_function(const struct sym_file *f, Dwarf *dw, uint64_t a, Dwarf_Die *die)
{
	size_t lo = 0, hi = f->nfns;

	while (lo < hi) { /* the first with low > a */
		size_t mid = (lo + hi) / 2;

		if (f->fns[mid].low <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges do not nest at the top level, but a short one may start
	 * inside a long one before it: look back a few */
	for (hi = lo; lo > 0 && hi - lo < 8; lo--)
		if (a < f->fns[lo - 1].high)
			return dwarf_offdie(dw, f->fns[lo - 1].die, die) != NULL;
	return 0;
}

/* The lines of pc in f: 0 with *out (maybe none), -1 on ENOMEM. */
static int lookup(struct sym_file *f, uint64_t pc, struct frame_line **out, size_t *nout)
{
	Dwfl_Module *mod = file_module(f);
	struct frame_line *v = NULL;
	Dwarf_Die scopes[INLINE_DEPTH_MAX], fn, cudie, *cu = NULL;
	Dwarf_Addr bias = 0;
	const char *file = NULL;
	int line = 0, col = 0, nscopes = 0, i, first = -1;
	size_t n = 0;
	Dwfl_Line *dl;
	Dwarf *dw;

	*out = NULL;
	*nout = 0;
	if (!mod)
		return 0;
	if ((dl = dwfl_module_getsrc(mod, pc)) != NULL)
		file = dwfl_lineinfo(dl, NULL, &line, &col, NULL, NULL);
	dw = dwfl_module_getdwarf(mod, &bias);
	if (dw && index_functions(f, dw) != 0)
		return -1;
	if (dw && find_function(f, dw, pc - bias, &fn) && dwarf_diecu(&fn, &cudie, NULL, NULL)) {
		/* from the function down to the innermost inlined scope at the pc */
		Dwarf_Die chain[INLINE_DEPTH_MAX], cur = fn;
		int depth = 0, found = 1, k;

		cu = &cudie;
		chain[depth++] = fn;
		while (found && depth < INLINE_DEPTH_MAX) {
			Dwarf_Die c;

			found = 0;
			if (dwarf_child(&cur, &c) != 0)
				break;
			do {
				int tag = dwarf_tag(&c);

				if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
				     tag == DW_TAG_subprogram) &&
				    dwarf_haspc(&c, pc - bias) > 0) {
					if (tag != DW_TAG_lexical_block)
						chain[depth++] = c;
					cur = c;
					found = 1;
					break;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		for (k = 0; k < depth; k++)
			scopes[k] = chain[depth - 1 - k];
		nscopes = depth;
	}
	for (i = 0; i < nscopes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			first = i;
			break;
		}
	}
	if (first >= 0) {
		Dwarf_Files *files = NULL;
		size_t nfiles = 0;
		int k = first;

		if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
			files = NULL;
		if (add_line(&v, &n, scope_name(&scopes[k]), file, line, col) != 0)
			goto oom;
		/* each inlined scope: the function around it, at its call site */
		while (dwarf_tag(&scopes[k]) == DW_TAG_inlined_subroutine && n < INLINE_DEPTH_MAX) {
			Dwarf_Attribute a;
			Dwarf_Word cfile = 0, cline = 0, ccol = 0;
			const char *callfile = NULL;
			int outer;

			if (dwarf_formudata(dwarf_attr(&scopes[k], DW_AT_call_file, &a), &cfile) == 0 &&
			    files && cfile < nfiles)
				callfile = dwarf_filesrc(files, cfile, NULL, NULL);
			if (dwarf_attr(&scopes[k], DW_AT_call_line, &a))
				dwarf_formudata(&a, &cline);
			if (dwarf_attr(&scopes[k], DW_AT_call_column, &a))
				dwarf_formudata(&a, &ccol);
			for (outer = k + 1; outer < nscopes; outer++) {
				int tag = dwarf_tag(&scopes[outer]);

				if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
					break;
			}
			if (outer >= nscopes)
				break;
			if (add_line(&v, &n, scope_name(&scopes[outer]), callfile, (int)cline,
				     (int)ccol) != 0)
				goto oom;
			k = outer;
		}
	}
	/* No DWARF function, or one without a name: the symbol table's */
	if (!n || !v[0].function) {
		GElf_Off off;
		GElf_Sym sym;
		const char *name = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);

		if (!n && (name || file) && add_line(&v, &n, NULL, file, line, col) != 0)
			goto oom;
		if (n && name && !(v[0].function = strdup(name)))
			goto oom;
	}
	*out = v;
	*nout = n;
	return 0;
oom:
	lines_free(v, n);
	return -1;
}

static size_t hit_slot(const struct symbols *s, size_t file, uint64_t pc)
{
	uint64_t h = (pc ^ ((uint64_t)file << 40)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (s->hits_cap - 1);
}

/* The cached lines of (file, pc), looked up at the first ask. NULL with
 * *found 0 on ENOMEM. */
static struct sym_hit *cached(struct symbols *s, size_t file, uint64_t pc)
{
	size_t i;
	struct sym_hit *h;

	if (2 * (s->nhits + 1) > s->hits_cap) {
		size_t cap = 2 * s->hits_cap, k;
		struct sym_hit *old = s->hits, *nv = calloc(cap, sizeof(*nv));

		if (!nv)
			return NULL;
		s->hits = nv;
		s->hits_cap = cap;
		for (k = 0; k < cap / 2; k++)
			if (old[k].file) {
				for (i = hit_slot(s, old[k].file, old[k].pc); nv[i].file;
				     i = (i + 1) & (cap - 1))
					;
				nv[i] = old[k];
			}
		free(old);
	}
	for (i = hit_slot(s, file + 1, pc); s->hits[i].file; i = (i + 1) & (s->hits_cap - 1))
		if (s->hits[i].file == file + 1 && s->hits[i].pc == pc)
			return &s->hits[i];
	h = &s->hits[i];
	if (lookup(&s->files[file], pc, &h->lines, &h->nlines) != 0)
		return NULL;
	h->file = file + 1;
	h->pc = pc;
	s->nhits++;
	return h;
}

int symbols_frame(struct symbols *s, struct frame *fr)
{
	struct sym_file *f;
	struct sym_hit *h;
	size_t i;

	frame_lines_release(fr);
	fr->why_not = NULL;
	if (!fr->build_id || !fr->build_id[0]) {
		fr->why_not = SYM_NO_BUILD_ID;
		return 0;
	}
	if (!(f = find_id(s, fr->build_id))) {
		fr->why_not = fr->library && has_name(s, library_base(fr->library)) ? SYM_NAME_MISMATCH
										    : SYM_NOT_FOUND;
		return 0;
	}
	if (!(h = cached(s, (size_t)(f - s->files), fr->pc)))
		return -1;
	if (!h->nlines) {
		fr->why_not = SYM_NO_DEBUG_INFO;
		return 0;
	}
	if (!(fr->lines = calloc(h->nlines, sizeof(*fr->lines))))
		return -1;
	for (i = 0; i < h->nlines; i++) {
		const struct frame_line *l = &h->lines[i];

		fr->lines[i].line = l->line;
		fr->lines[i].column = l->column;
		if ((l->function && !(fr->lines[i].function = strdup(l->function))) ||
		    (l->file && !(fr->lines[i].file = strdup(l->file)))) {
			fr->nlines = i + 1;
			frame_lines_release(fr);
			return -1;
		}
		fr->nlines = i + 1;
	}
	return 1;
}
