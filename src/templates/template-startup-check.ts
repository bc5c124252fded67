// docs/templates.md, "How a template is checked": what a template may not ship because it would load
// files tool code controls into hook interpreters (or into the root agent itself).

/**
 * Places tool code (or a hook) can write: /workspace, /tmp (with `writableTmp`), /dev/shm, the hook
 * state dir. Nothing in the read-only root may lead into them.
 */
export const WRITABLE_PLACES = ['/workspace', '/tmp', '/dev/shm', '/var/lib/hookbox'] as const;

/**
 * Run as the tool user in the template's hardened self-check environment. Prints one
 * `startup=<problem>` line per finding:
 *
 * - `/etc/ld.so.preload` with any entry: loaded into every process, the root agent's included;
 * - a `sitecustomize` or `usercustomize` module on python3's path, or a `.pth` file in its site
 *   folders, that is not its Debian package's own, unchanged (Debian ships a sitecustomize.py and
 *   python3-setuptools a `.pth`): python runs them at every start, the agent's (`-I` keeps them)
 *   and every python hook's. A `.pth` of another origin is refused when it runs code (`import`
 *   lines) or puts a writable place on the path;
 * - a symlink in the read-only root that leads into a writable place: a program, library or module
 *   found there would be tool code's.
 *
 * `python3 -I -S` lists the folders without importing `site` (so nothing of the template runs).
 */
export const STARTUP_PROBE = String.raw`
writable='^(${WRITABLE_PLACES.join('|')})(/|$)'
if [ -s /etc/ld.so.preload ] && grep -qv '^[[:space:]]*\(#.*\)\?$' /etc/ld.so.preload; then
  echo "startup=/etc/ld.so.preload preloads a library into every process (the root agent's too)"
fi
unchanged_from_debian() {
  for path in "$1" "$(realpath -m "$1")"; do
    owner=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
    [ -n "$owner" ] || return 1
    dpkg --verify "$owner" 2>/dev/null | grep -q " $path$" && return 1
  done
  return 0
}
dirs=$(/usr/bin/python3 -I -S -c 'import site, sys; print("\n".join(p for p in sys.path + site.getsitepackages() if p))' 2>/dev/null)
for dir in $dirs; do
  [ -d "$dir" ] || continue
  for file in "$dir"/sitecustomize* "$dir"/usercustomize*; do
    [ -e "$file" ] || [ -L "$file" ] || continue
    unchanged_from_debian "$file" || echo "startup=$file runs at every python start and is not its Debian package's own"
  done
  for file in "$dir"/*.pth; do
    [ -e "$file" ] || continue
    if grep -Eq '^[[:space:]]*import[[:space:]]' "$file" && ! unchanged_from_debian "$file"; then
      echo "startup=$file runs code at every python start and is not its Debian package's own"
    fi
    grep -Ev '^[[:space:]]*(#|import[[:space:]]|$)' "$file" | while IFS= read -r entry; do
      case "$entry" in /*) target=$entry ;; *) target=$dir/$entry ;; esac
      if realpath -m "$target" | grep -Eq "$writable"; then
        echo "startup=$file puts $entry on python's path, a place tool code writes"
      fi
    done
  done
done
find / -xdev \( -path /proc -o -path /sys -o -path /dev \) -prune -o -type l -print 2>/dev/null |
  while IFS= read -r link; do
    target=$(realpath -m "$link" 2>/dev/null) || continue
    if printf '%s\n' "$target" | grep -Eq "$writable"; then
      echo "startup=$link is a symlink to $target, a place tool code writes"
    fi
  done | head -n 20
`;

/** The problems the probe's output names. */
export function startupProblems(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('startup='))
    .map((line) => line.slice('startup='.length));
}
