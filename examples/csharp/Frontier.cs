// Frontier: the frontier set of two players on a PVS store, from C# through
// the Frontiersets package's P/Invoke declarations
// (bindings/unity/Runtime/Frontiersets.cs). Build and run with Debian's
// mono:
//
//   make lib
//   mcs examples/csharp/Frontier.cs bindings/unity/Runtime/Frontiersets.cs -out:Frontier.exe
//   LD_LIBRARY_PATH=build mono Frontier.exe STORE colA rowA colB rowB
using System;
using Frontiersets;

public static class Program
{
    public static int Main(string[] args)
    {
        int ca = 0, ra = 0, cb = 0, rb = 0;
        if (args.Length != 5 || !int.TryParse(args[1], out ca) || !int.TryParse(args[2], out ra) ||
            !int.TryParse(args[3], out cb) || !int.TryParse(args[4], out rb))
        {
            Console.Error.WriteLine("usage: Frontier.exe STORE colA rowA colB rowB");
            return 2;
        }
        var err = new Native.Error();
        long store;
        if (Native.Open(args[0], out store, ref err) != 0)
        {
            Console.Error.WriteLine("Frontier: " + err);
            return 1;
        }
        try
        {
            Native.Info info;
            Native.Result res;
            var opt = new Native.Options { MaxSteps = 125 };
            if (Native.GetInfo(store, out info, ref err) != 0 ||
                Native.Frontier(store, ca, ra, cb, rb, ref opt, out res, IntPtr.Zero, ref err) != 0)
            {
                Console.Error.WriteLine("Frontier: " + err);
                return 1;
            }
            if (res.MutuallyVisible != 0)
                Console.WriteLine("mutually visible");
            else
                // Bounded at 125 steps, as frontierq --max-steps 125:
                // smaller regions than frontierq's unbounded default.
                Console.WriteLine("A {0} points in {1} quads, B {2} points in {3} quads{4}", res.APoints, res.AQuads, res.BPoints, res.BQuads,
                    res.Truncated != 0 ? " (stopped at 125 steps, as frontierq --max-steps 125)" : "");
            var mask = new byte[(long)info.Width * info.Height];
            if (Native.Pvs(store, ca, ra, mask, mask.LongLength, ref err) != 0)
            {
                Console.Error.WriteLine("Frontier: " + err);
                return 1;
            }
            long vis = 0, unk = 0, hid = 0;
            foreach (byte v in mask)
            {
                if (v == 255) vis++;
                else if (v == 128) unk++;
                else hid++;
            }
            Console.WriteLine("PVS of A: {0} visible, {1} unknown, {2} hidden", vis, unk, hid);
            return 0;
        }
        finally
        {
            Native.Close(store, ref err);
        }
    }
}
