// The whole isolation suite (isolation.test.ts, docs/contract.md §2) on a template rather than the default
// image: test/templates/hostile, which installs a Debian package and tries a setuid-root shell,
// file capabilities and USER tool (docs/templates.md, "Testing a template"). The same tests, the
// same assertions: a template cannot weaken the sandbox.
process.env.HOOKBOX_TEST_TEMPLATE = 'hostile';
await import('./isolation.test.js');

const { describe, expect, it } = await import('vitest');
const { bash, useController, withEnvironment } = await import('./helpers.js');
const controller = useController();

describe('the suite above ran on the template', () => {
  it("environments have the template's package, and its setuid shell and capabilities are gone", async () => {
    await withEnvironment(controller, {}, async (environment) => {
      const outcome = await environment.call(
        bash(
          'sqlite3 :memory: "select 6*7"; stat -c %A /usr/local/bin/rootbash; ' +
            'rootbash -p -c "id -u"; ' +
            'python3 -c "import os; print(os.listxattr(\'/usr/local/bin/cap-python\'))"',
        ),
      );
      expect(outcome.result).toMatchObject({
        stdout: '42\n-rwxr-xr-x\n1000\n[]\n',
      });
    });
  });
});
