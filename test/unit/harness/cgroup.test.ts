import { cgroupBase, isRunCgroup, runCgroupName } from '../../../src/harness/cgroup';
import { describeContainment } from '../../../src/harness/containment';

const HYBRID = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');
const PURE_V2 =
  '30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate';
const V1_ONLY = '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory';

describe('where a run’s cgroup goes', () => {
  it('a cgroup v1 hybrid host with cgroup2 at /sys/fs/cgroup/unified: under the mount, from the 0:: line', () => {
    expect(cgroupBase(HYBRID, '4:memory:/a/b\n0::/\n')).toEqual({
      kind: 'cgroup',
      base: '/sys/fs/cgroup/unified/the-loop',
    });
  });

  it('a pure v2 systemd host: under the process’s own cgroup', () => {
    expect(cgroupBase(PURE_V2, '0::/system.slice/the-loop.service\n')).toEqual({
      kind: 'cgroup',
      base: '/sys/fs/cgroup/system.slice/the-loop.service/the-loop',
    });
  });

  it('a mount of a subtree (a container’s view): the own path is taken relative to the mount’s root', () => {
    const info = '50 40 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw';
    expect(cgroupBase(info, '0::/docker/abc/app\n')).toEqual({
      kind: 'cgroup',
      base: '/sys/fs/cgroup/app/the-loop',
    });
    expect(cgroupBase(info, '0::/elsewhere\n')).toMatchObject({
      kind: 'process-group',
      reason: expect.stringContaining('outside the mounted cgroup2 tree') as unknown,
    });
  });

  it('falls back, saying why, without cgroup2 or without a cgroup v2 membership', () => {
    expect(cgroupBase(V1_ONLY, '4:memory:/\n')).toEqual({
      kind: 'process-group',
      reason: 'no cgroup2 file system is mounted',
    });
    expect(cgroupBase(HYBRID, '4:memory:/\n')).toEqual({
      kind: 'process-group',
      reason: 'this process has no cgroup v2 membership',
    });
    expect(describeContainment({ kind: 'process-group', reason: 'no cgroup2 file system is mounted' })).toBe(
      'containment: process group + marker scan: no cgroup2 file system is mounted',
    );
  });

  it('a run’s cgroup is named from its directory, and a recorded path is trusted only if it is that name', () => {
    const dir = '/s/harness_outputs/0001_planner/run-1-abcd';
    const name = runCgroupName(dir);
    expect(name).toMatch(/^run-1-abcd-[0-9a-f]{12}$/);
    expect(runCgroupName(dir)).toBe(name);
    expect(runCgroupName('/other/harness_outputs/0001_planner/run-1-abcd')).not.toBe(name);
    const mount = '/sys/fs/cgroup/unified';
    expect(isRunCgroup(`${mount}/the-loop/${name}`, dir, mount)).toBe(true);
    expect(isRunCgroup(`${mount}/x/the-loop/${name}`, dir, mount)).toBe(true);
    expect(isRunCgroup(mount, dir, mount)).toBe(false);
    expect(isRunCgroup(`${mount}/the-loop`, dir, mount)).toBe(false);
    expect(isRunCgroup(`${mount}/system.slice/${name}`, dir, mount)).toBe(false);
    expect(isRunCgroup(`/tmp/the-loop/${name}`, dir, mount)).toBe(false);
    expect(isRunCgroup(`${mount}/the-loop/${name}/../../system.slice`, dir, mount)).toBe(false);
  });
});
