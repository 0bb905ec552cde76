/* attack_db.c — builds the hostile databases of tests/attacks.sh: the tool's
 * own sql command only reads, the sqlite3 shell may be missing (CI installs
 * libsqlite3-dev only) and the tests use no python.
 *
 *   attack-db DB SQL          run SQL on DB (read-write; created if missing)
 *   attack-db --crash DB SQL  run SQL (which opens a transaction and writes)
 *                             and end the process there, without a commit or
 *                             a close: DB is left with a hot journal, as by a
 *                             writer that crashed mid-write
 *
 * Exit status 0, or 1 with SQLite's message on standard error. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int crash = argc == 4 && strcmp(argv[1], "--crash") == 0;
	if (argc != 3 + crash) {
		fprintf(stderr, "usage: attack-db [--crash] DB SQL\n");
		return 2;
	}
	const char *path = argv[1 + crash], *sql = argv[2 + crash];
	sqlite3 *db = NULL;
	char *msg = NULL;
	if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "attack-db: %s: %s\n", path, msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		sqlite3_close(db);
		return 1;
	}
	if (crash)
		_exit(0); /* the journal stays, and no lock holds it: hot */
	return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}
