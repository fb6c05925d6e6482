// Frontier: the frontier set of two players on a PVS store, from C# through
// P/Invoke, as a Unity script (or a Mirror or Photon server) would call
// libfrontiersets. Build and run with Debian's mono:
//
//   make lib
//   mcs examples/csharp/Frontier.cs -out:Frontier.exe
//   LD_LIBRARY_PATH=build mono Frontier.exe STORE colA rowA colB rowB
//
// In Unity, put libfrontiersets.so (Linux) or frontiersets.dll (Windows:
// make lib-windows) under Assets/Plugins and keep the declarations of
// Native; "frontiersets" names either.
using System;
using System.Runtime.InteropServices;

public static class Native
{
    const string Lib = "frontiersets"; // libfrontiersets.so

    [StructLayout(LayoutKind.Sequential)]
    public struct Error
    {
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 256)]
        public byte[] Message;

        public override string ToString()
        {
            if (Message == null) return "";
            int n = Array.IndexOf(Message, (byte)0);
            return System.Text.Encoding.UTF8.GetString(Message, 0, n < 0 ? Message.Length : n);
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Info
    {
        public int Width, Height;
        public double CellXM, CellYM;
        public int Georeferenced, HasCRS;
        public long StoredBytes;
        public double HiddenKept;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Options
    {
        public int Lossy, Simple, MaxSteps;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct Result
    {
        public int MutuallyVisible;
        public long APoints, BPoints;
        public int AQuads, BQuads, Steps, Truncated;
        public double ElapsedMs;
    }

    // World positions of a store baked with pvsbake bake --engine unity:
    // (x, z) in metres to fractional cells, and a cell's centre back.
    [DllImport(Lib, EntryPoint = "fs_world_to_position")]
    public static extern int WorldToPosition(long store, double a, double b, out double x, out double y, ref Error err);

    [DllImport(Lib, EntryPoint = "fs_cell_to_world")]
    public static extern int CellToWorld(long store, int col, int row, out double a, out double b, ref Error err);

    // Interest management for a whole match (the joint frontier): one
    // manager per thread; free it before closing its store.
    [StructLayout(LayoutKind.Sequential)]
    public struct TickResult
    {
        public int Exits, Open;
        public long Packets;
    }

    [DllImport(Lib, EntryPoint = "fs_interest_new")]
    public static extern int InterestNew(long store, int players, out long manager, ref Error err);

    [DllImport(Lib, EntryPoint = "fs_interest_tick")]
    public static extern int InterestTick(long manager, double[] positions, int players, out TickResult res, ref Error err);

    [DllImport(Lib, EntryPoint = "fs_interest_sends_to")]
    public static extern int InterestSendsTo(long manager, int player, int[] to, int cap, out int n, ref Error err);

    [DllImport(Lib, EntryPoint = "fs_interest_free")]
    public static extern int InterestFree(long manager, ref Error err);

    [DllImport(Lib, EntryPoint = "fs_open")]
    public static extern int Open([MarshalAs(UnmanagedType.LPUTF8Str)] string path, out long store, ref Error err);

    [DllImport(Lib, EntryPoint = "fs_close")]
    public static extern int Close(long store, ref Error err);

    [DllImport(Lib, EntryPoint = "fs_info_get")]
    public static extern int GetInfo(long store, out Info info, ref Error err);

    [DllImport(Lib, EntryPoint = "fs_frontier")]
    public static extern int Frontier(long store, int colA, int rowA, int colB, int rowB, ref Options opt, out Result res, IntPtr output, ref Error err);

    [DllImport(Lib, EntryPoint = "fs_pvs")]
    public static extern int Pvs(long store, int col, int row, byte[] mask, long maskLen, ref Error err);
}

// World positions with .NET's exceptions, as a Unity script would want
// them: ArgumentOutOfRangeException off the terrain (FS_ERANGE; the message
// gives the world bounds), InvalidOperationException for a store baked
// without --engine (FS_ENOGEO), System.IO.IOException when the store's
// file was cut under the reader (FS_EIO).
public static class World
{
    public static void ToPosition(long store, double a, double b, out double x, out double y)
    {
        var err = new Native.Error();
        Check(Native.WorldToPosition(store, a, b, out x, out y, ref err), err, "world position");
    }

    public static void FromCell(long store, int col, int row, out double a, out double b)
    {
        var err = new Native.Error();
        Check(Native.CellToWorld(store, col, row, out a, out b, ref err), err, "cell");
    }

    static void Check(int rc, Native.Error err, string what)
    {
        switch (rc)
        {
            case 0: return;
            case 3: throw new ArgumentOutOfRangeException(what, err.ToString()); // FS_ERANGE
            case 7: throw new InvalidOperationException(err.ToString());         // FS_ENOGEO
            case 4: throw new System.IO.IOException(err.ToString());             // FS_EIO
            default: throw new ArgumentException(err.ToString());
        }
    }
}

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
