/* exec:CMD: run it, parse its JSON, pick the counters out by the map. */
#include "counters/exec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUN_TIMEOUT_MS 10000
#define OUT_MAX (64u << 20)

void rp_exec_map_free(struct rp_exec_map *m)
{
	free(m->port);
	free(m->counter);
	memset(m, 0, sizeof(*m));
}

int rp_exec_map_load(const char *path, struct rp_exec_map *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		snprintf(err, errlen, "map %s: %s (line %d)", path, je.text, je.line);
		return -1;
	}
	json_t *ports = json_object_get(root, "ports"), *ctrs = json_object_get(root, "counters");
	int rc = -1;
	if (!json_is_array(ports) || !json_array_size(ports) || !json_is_object(ctrs) || !json_object_size(ctrs)) {
		snprintf(err, errlen, "map %s: expected {\"ports\": [NAME, ...], \"counters\": {KEY: PATH, ...}}", path);
		goto out;
	}
	if (json_array_size(ports) > RP_CNT_PORTS_MAX) {
		snprintf(err, errlen, "map %s: %zu ports, at most %d", path, json_array_size(ports), RP_CNT_PORTS_MAX);
		goto out;
	}
	m->port = calloc(json_array_size(ports), sizeof(*m->port));
	m->counter = calloc(json_object_size(ctrs), sizeof(*m->counter));
	if (!m->port || !m->counter) {
		snprintf(err, errlen, "map %s: out of memory", path);
		goto out;
	}
	size_t i;
	json_t *v;
	json_array_foreach(ports, i, v) {
		if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) >= sizeof(m->port[0])) {
			snprintf(err, errlen, "map %s: ports[%zu] is not a port name", path, i);
			goto out;
		}
		snprintf(m->port[m->nports++], sizeof(m->port[0]), "%s", json_string_value(v));
	}
	const char *k;
	json_object_foreach(ctrs, k, v) {
		struct rp_exec_counter *c = &m->counter[m->ncounters++];
		if (!json_is_string(v) || strlen(k) >= sizeof(c->name) || json_string_length(v) >= sizeof(c->path) ||
		    !json_string_length(v)) {
			snprintf(err, errlen, "map %s: counters.%.40s is not a path (a string)", path, k);
			goto out;
		}
		snprintf(c->name, sizeof(c->name), "%s", k);
		snprintf(c->path, sizeof(c->path), "%s", json_string_value(v));
		bool bad = false;
		const char *p = c->path;
		while ((p = strchr(p, '[')) != NULL) {
			const char *e = strchr(p, ']');
			if (!e) {
				bad = true;
				break;
			}
			p = e;
		}
		if (bad) {
			snprintf(err, errlen, "map %s: counters.%s: '[' without ']' in %s", path, k, c->path);
			goto out;
		}
	}
	rc = 0;
out:
	json_decref(root);
	if (rc)
		rp_exec_map_free(m);
	return rc;
}

/* One selector inside [ ]: N, or FIELD=VALUE. */
static json_t *select_in(json_t *cur, const char *sel, size_t len)
{
	char s[256];
	snprintf(s, sizeof(s), "%.*s", (int)(len < 255 ? len : 255), sel);
	char *eq = strchr(s, '=');
	if (!eq) {
		char *end;
		unsigned long n = strtoul(s, &end, 10);
		return json_is_array(cur) && s[0] && !*end ? json_array_get(cur, n) : NULL;
	}
	*eq = '\0';
	size_t i;
	json_t *e;
	json_array_foreach(cur, i, e) {
		json_t *f = json_object_get(e, s);
		if (json_is_string(f) && strcmp(json_string_value(f), eq + 1) == 0)
			return e;
		if (json_is_integer(f)) {
			char n[32];
			snprintf(n, sizeof(n), "%" JSON_INTEGER_FORMAT, json_integer_value(f));
			if (strcmp(n, eq + 1) == 0)
				return e;
		}
	}
	return NULL;
}

json_t *rp_exec_path(json_t *root, const char *path)
{
	json_t *cur = root;
	const char *p = path;
	while (cur && *p) {
		if (*p == '.') {
			p++;
			continue;
		}
		if (*p == '[') {
			const char *e = strchr(p, ']');
			if (!e)
				return NULL;
			cur = select_in(cur, p + 1, (size_t)(e - p - 1));
			p = e + 1;
			continue;
		}
		size_t n = strcspn(p, ".[");
		char key[256];
		snprintf(key, sizeof(key), "%.*s", (int)(n < 255 ? n : 255), p);
		cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
		p += n;
	}
	return cur;
}

/* path with {port} and {prio} replaced. */
static void expand(const char *path, const char *port, int prio, char *out, size_t len)
{
	size_t o = 0;
	for (const char *p = path; *p && o + 1 < len;) {
		if (strncmp(p, "{port}", 6) == 0) {
			o += (size_t)snprintf(out + o, len - o, "%s", port);
			p += 6;
		} else if (strncmp(p, "{prio}", 6) == 0) {
			o += (size_t)snprintf(out + o, len - o, "%d", prio);
			p += 6;
		} else
			out[o++] = *p++;
		if (o >= len)
			o = len - 1;
	}
	out[o] = '\0';
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* cmd's stdout (malloc'd) and the first line of its stderr; 0, or -1 with err. */
static int run(const char *cmd, char **out, size_t *outlen, char *err, size_t errlen)
{
	int po[2], pe[2];
	if (pipe2(po, O_CLOEXEC))
		return snprintf(err, errlen, "pipe: %s", strerror(errno)), -1;
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return snprintf(err, errlen, "pipe: %s", strerror(errno)), -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		return snprintf(err, errlen, "fork: %s", strerror(errno)), -1;
	}
	size_t cap = 1 << 16, n = 0, en = 0;
	char *b = malloc(cap), ebuf[512];
	bool open_o = true, open_e = true, timeout = false, big = false;
	uint64_t deadline = now_ms() + RUN_TIMEOUT_MS;
	while (b && (open_o || open_e)) {
		struct pollfd fds[2] = {{.fd = open_o ? po[0] : -1, .events = POLLIN}, {.fd = open_e ? pe[0] : -1, .events = POLLIN}};
		uint64_t t = now_ms();
		if (t >= deadline) {
			timeout = true;
			break;
		}
		if (poll(fds, 2, (int)(deadline - t)) < 0 && errno != EINTR)
			break;
		if (fds[0].revents) {
			if (n == cap) {
				if (cap >= OUT_MAX) {
					big = true;
					break;
				}
				char *g = realloc(b, cap *= 2);
				if (!g) {
					free(b);
					b = NULL;
					break;
				}
				b = g;
			}
			ssize_t r = read(po[0], b + n, cap - n);
			if (r <= 0)
				open_o = false;
			else
				n += (size_t)r;
		}
		if (fds[1].revents) {
			char tmp[512];
			ssize_t r = read(pe[0], tmp, sizeof(tmp));
			if (r <= 0)
				open_e = false;
			for (ssize_t i = 0; i < r && en + 1 < sizeof(ebuf); i++)
				ebuf[en++] = tmp[i];
		}
	}
	ebuf[en] = '\0';
	ebuf[strcspn(ebuf, "\n")] = '\0';
	close(po[0]);
	close(pe[0]);
	if (timeout || big || !b)
		kill(pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (timeout || big || !b) {
		free(b);
		snprintf(err, errlen, "%s", timeout ? "did not finish within 10 s" : big ? "printed more than 64 MiB" : "out of memory");
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		free(b);
		if (WIFEXITED(st))
			snprintf(err, errlen, "exited %d%s%.300s", WEXITSTATUS(st), ebuf[0] ? ": " : "", ebuf);
		else
			snprintf(err, errlen, "killed by signal %d", WTERMSIG(st));
		return -1;
	}
	*out = b;
	*outlen = n;
	return 0;
}

int rp_exec_read(const char *cmd, const struct rp_exec_map *m, struct rp_cnt_snap *out, char *err, size_t errlen)
{
	char *text, e[400];
	size_t len;
	if (!m || !m->nports) {
		snprintf(err, errlen, "exec:%s: no map (--map FILE: the ports and a JSON path per counter)", cmd);
		return -1;
	}
	if (run(cmd, &text, &len, e, sizeof(e))) {
		snprintf(err, errlen, "exec:%.200s: %s", cmd, e);
		return -1;
	}
	json_error_t je;
	json_t *root = json_loadb(text, len, 0, &je);
	free(text);
	if (!root) {
		snprintf(err, errlen, "exec:%.200s: its output is not JSON: %s (line %d)", cmd, je.text, je.line);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < m->nports && !rc; i++) {
		struct rp_cnt_port *p = rp_cnt_add_port(out, m->port[i]);
		size_t found = 0;
		for (size_t c = 0; c < m->ncounters && !rc; c++) {
			bool per_prio = strstr(m->counter[c].path, "{prio}") != NULL;
			for (int q = per_prio ? 0 : -1; q < (per_prio ? 8 : 0) && !rc; q++) {
				char path[512];
				expand(m->counter[c].path, m->port[i], q, path, sizeof(path));
				json_t *v = rp_exec_path(root, path);
				if (!v || json_is_null(v))
					continue;
				uint64_t val = 0;
				char *end = NULL;
				if (json_is_integer(v) && json_integer_value(v) >= 0)
					val = (uint64_t)json_integer_value(v);
				else if (json_is_string(v) && json_string_value(v)[0] >= '0' && json_string_value(v)[0] <= '9' &&
					 (errno = 0, val = strtoull(json_string_value(v), &end, 10), !*end && !errno))
					;
				else {
					char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
					snprintf(err, errlen, "exec:%.120s: %s at %.200s is %.40s, not a count", cmd, m->counter[c].name,
						 path, d ? d : "?");
					free(d);
					rc = -1;
					break;
				}
				struct rp_ctr r = {.src = RP_CTR_EXEC, .value = val};
				if (q >= 0)
					snprintf(r.name, sizeof(r.name), "%s.%d", m->counter[c].name, q);
				else
					snprintf(r.name, sizeof(r.name), "%s", m->counter[c].name);
				rp_cnt_port_fold(p, &r, 1);
				found++;
			}
		}
		if (!rc && !found) {
			snprintf(err, errlen, "exec:%.200s: no path of the map finds anything for port %s in its output", cmd,
				 m->port[i]);
			rc = -1;
		}
	}
	json_decref(root);
	return rc;
}
