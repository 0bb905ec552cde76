/* btree_write.h — writes SQLite b-trees as file-format pages, without
 * SQLite, into a database file that SQLite created and closed.
 *
 * Use: SQLite creates the schema (the b-trees to fill exist, empty, each on
 * its root page) and closes the file.  bt_file_open reads the database
 * header; for each b-tree, bt_tree_begin, then its entries in key order
 * (bt_tree_add_row for a table b-tree, bt_tree_add_key for an index
 * b-tree), then bt_tree_finish.  Pages are appended after the file's end as
 * each fills; a tree's root page is kept in memory.  bt_file_commit writes
 * the roots over the empty root pages, puts the pages reserved but not used
 * on the freelist and updates the header; bt_file_abort instead cuts the
 * file back to what SQLite wrote, unchanged.  Several trees may be built at
 * once, one thread each (page numbers are handed out under a lock).  New
 * pages go out in batches of consecutive pages, bypassing the page cache
 * where the file system allows (O_DIRECT: no copy into the kernel).
 *
 * Not handled (BT_UNSUPPORTED, the caller falls back to SQL): a header
 * this writer does not know (WAL, auto-vacuum, UTF-16, non-standard payload
 * fractions, an in-header size that does not match the file) and any entry
 * too large to stay on its page (it would need overflow pages).  Which parts
 * of the SQLite file format this implements is described in btree_write.c. */
#ifndef UGC_BTREE_WRITE_H
#define UGC_BTREE_WRITE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "sql/row_value.h"

enum { BT_OK = 0, BT_UNSUPPORTED = 1, BT_ERROR = -1 };

/* One root page to write at commit. */
typedef struct bt_root {
	uint32_t pgno;
	uint8_t *page;
} bt_root;

/* The database file being extended. */
typedef struct bt_file {
	int fd;
	int io_errno;               /* a failed write's errno (0: none), for the caller's message */
	int dfd;                    /* the same with O_DIRECT, for the new pages; -1: none */
	uint32_t page_size, usable; /* usable: page size less the reserved bytes */
	int format4;                /* schema format 4: integers 0 and 1 take no bytes */
	uint32_t orig_pages;        /* the database as SQLite left it */
	uint32_t lock_page;         /* the page holding byte 2^30: never used */
	pthread_mutex_t lock;       /* guards the fields below */
	uint32_t next;              /* first page never handed out */
	uint32_t *spare;            /* pages a finished tree reserved but did not use: handed out
				     * again, and the freelist of those left at commit */
	uint32_t nspare, spare_cap;
	bt_root *roots;
	uint32_t nroots, roots_cap;
} bt_file;

/* Open PATH and read its header.  BT_OK, BT_UNSUPPORTED (WHY says what),
 * or BT_ERROR (ERR). */
int bt_file_open(bt_file *f, const char *path, char *err, size_t errsize);
/* Write the roots, the freelist and the header, and close. */
int bt_file_commit(bt_file *f, char *err, size_t errsize);
/* Leave the file as SQLite wrote it, and close. */
void bt_file_abort(bt_file *f);

/* The open page of one level of a tree being built (0: the leaves).
 * Cells are appended from the page's end downwards; the cell pointers from
 * the header upwards.  PENDING is an entry that did not fit: it becomes the
 * divider above this page once the next entry shows that the level goes on
 * (for table leaves, which send their last rowid up, it is never used). */
typedef struct bt_level {
	uint8_t *page;
	uint32_t ncell;
	uint32_t content;      /* offset of the lowest cell */
	uint32_t last_size;    /* bytes of the last cell appended, padding included */
	uint32_t last_len;     /* and without */
	uint8_t *pending;      /* child page (4 bytes) and key, as a cell above */
	uint32_t pending_size; /* 0: none */
} bt_level;

#define BT_MAX_LEVELS 40
#define BT_BATCH_MAX 16 /* pages written at once */

/* One b-tree being built; see the use above. */
typedef struct bt_tree {
	bt_file *f;
	int index;       /* 1: an index b-tree, 0: a table b-tree */
	uint32_t root;
	uint32_t max_local; /* largest payload a cell keeps on its page */
	int nlevels;
	bt_level level[BT_MAX_LEVELS];
	int64_t last_rowid;  /* table: the last row added */
	uint64_t entries;
	/* page numbers reserved: batch_first .. + batch_cap, the first
	 * batch_used handed out; the last `queued` of these are the finished
	 * pages QUEUE[] not yet written (one write when the batch is used up) */
	uint32_t batch_first, batch_used, batch_cap;
	uint8_t *queue[BT_BATCH_MAX];
	uint32_t queued;
	uint8_t *spare[BT_BATCH_MAX]; /* page buffers free for reuse */
	uint32_t nspare;
	uint8_t *cell;       /* scratch for one cell */
	char *err;
	size_t errsize;
} bt_tree;

/* Start the tree whose (empty) root page is ROOT.  ERR receives the
 * message of any later failure. */
int bt_tree_begin(bt_tree *t, bt_file *f, int index, uint32_t root, char *err, size_t errsize);
/* Table b-tree: a row of rowid ROWID (greater than the last) and RECORD. */
int bt_tree_add_row(bt_tree *t, int64_t rowid, const uint8_t *record, size_t len);
/* Index b-tree: the next key (a record, greater than the last). */
int bt_tree_add_key(bt_tree *t, const uint8_t *record, size_t len);
/* Index b-tree: the next key, the record of N (at most BT_INTS_MAX)
 * integers V (NULL where bit K of NULLS is set). */
int bt_tree_add_ints(bt_tree *t, const int64_t *v, uint32_t nulls, int n);
/* Write the last pages; the root waits for bt_file_commit. */
int bt_tree_finish(bt_tree *t);
/* Free what the tree holds (after finish, or instead of it on failure). */
void bt_tree_free(bt_tree *t);

/* Record format: N values into OUT (CAP bytes).  Returns the record's
 * length, which may exceed CAP: then nothing useful was written. */
size_t bt_record(const bt_file *f, const row_value *v, int n, uint8_t *out, size_t cap);
/* The same for N (at most BT_INTS_MAX) integers V, NULL where bit K of
 * NULLS is set; OUT has room for 9 * N + 1 bytes. */
#define BT_INTS_MAX 8
size_t bt_record_ints(const bt_file *f, const int64_t *v, uint32_t nulls, int n, uint8_t *out);
/* The largest record bt_record is ever asked to write that still fits a
 * page: a buffer of this size is enough. */
#define BT_RECORD_MAX 65536

#endif
