/* What several cmocka tests share, one copy each (include after cmocka.h):
 * - rp_test_dup_exact: a buffer of exactly n heap bytes, so a parser that
 *   reads past n is caught by ASan or valgrind;
 * - rp_test_run: roceprobe run as a child, its exit code and stderr;
 * - rp_test_one_line: stderr holds exactly one "roceprobe CMD:" line, and it
 *   is the expected one. */
#ifndef RP_TESTS_UNIT_CHECK_H
#define RP_TESTS_UNIT_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Exactly n bytes on the heap (one byte for n == 0, never read), a copy of
 * src's first n. */
static inline uint8_t *rp_test_dup_exact(const uint8_t *src, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	assert_non_null(p);
	memcpy(p, src, n);
	return p;
}

/* Runs exe with args (NULL-terminated, at most 30); returns the exit code
 * (-1 when it died of a signal), its stderr in err. stdout goes to
 * /dev/null unless out is given. */
static inline int rp_test_run_out(const char *exe, const char *const *args, char *err, size_t len, char *out,
				  size_t out_len)
{
	int efd[2], ofd[2];
	assert_int_equal(pipe(efd), 0);
	assert_int_equal(pipe(ofd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(efd[1], 2);
		dup2(ofd[1], 1);
		close(efd[0]);
		close(ofd[0]);
		const char *argv[32] = {exe};
		for (int i = 0; args[i] && i < 30; i++)
			argv[i + 1] = args[i];
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	close(efd[1]);
	close(ofd[1]);
	/* stdout first: the commands tested print little, so neither pipe fills. */
	size_t n = 0;
	ssize_t r;
	char sink[4096];
	while ((r = read(ofd[0], out && n + 1 < out_len ? out + n : sink,
			 out && n + 1 < out_len ? out_len - 1 - n : sizeof(sink))) > 0)
		if (out && n + 1 < out_len)
			n += (size_t)r;
	if (out)
		out[n] = '\0';
	close(ofd[0]);
	n = 0;
	while (n + 1 < len && (r = read(efd[0], err + n, len - 1 - n)) > 0)
		n += (size_t)r;
	err[n] = '\0';
	close(efd[0]);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline int rp_test_run(const char *exe, const char *const *args, char *err, size_t len)
{
	return rp_test_run_out(exe, args, err, len, NULL, 0);
}

/* err holds exactly one line starting with prefix ("roceprobe ep:"), and
 * that line is want (other lines, e.g. a provider library's warnings, are
 * allowed). */
static inline void rp_test_one_line(const char *err, const char *prefix, const char *want)
{
	const char *p = strstr(err, prefix);
	if (!p)
		fail_msg("no '%s' line in stderr: '%s'", prefix, err);
	assert_null(strstr(p + 1, prefix)); /* exactly one */
	size_t l = strcspn(p, "\n");
	if (l != strlen(want) || memcmp(p, want, l) != 0)
		fail_msg("stderr line '%.*s', want '%s'", (int)l, p, want);
}

#endif
