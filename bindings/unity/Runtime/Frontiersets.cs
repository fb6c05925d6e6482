// Frontiersets: the C library's functions for C# through P/Invoke — a
// store's frontier sets, PVSs and world positions, and the interest
// manager — as a Unity project (or a Mirror or Photon server) calls them.
// "frontiersets" names libfrontiersets.so (Linux: make lib) and
// frontiersets.dll (Windows: make lib-windows) alike; in Unity they go in
// the package's Plugins/x86_64 (make unity-package). Error codes and
// ownership are frontiersets.h's.
using System;
using System.Runtime.InteropServices;

namespace Frontiersets
{
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

        [DllImport(Lib, EntryPoint = "fs_interest_tick_world")]
        public static extern int InterestTickWorld(long manager, double[] world, int players, out TickResult res, ref Error err);

        [DllImport(Lib, EntryPoint = "fs_interest_sends_to")]
        public static extern int InterestSendsTo(long manager, int player, int[] to, int cap, out int n, ref Error err);

        [DllImport(Lib, EntryPoint = "fs_interest_add")]
        public static extern int InterestAdd(long manager, out int player, ref Error err);

        [DllImport(Lib, EntryPoint = "fs_interest_remove")]
        public static extern int InterestRemove(long manager, int player, ref Error err);

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
}
