// Store and InterestManager: the C library as a Unity script (or a Mirror
// or Photon server) wants it — SafeHandle-backed objects that close
// themselves (IDisposable), .NET's exceptions, world positions as (x, z)
// floats in arrays the caller reuses, send lists written into the
// caller's buffers, and nothing allocated per call: the error message
// buffer is unmanaged memory taken once per object, every argument is
// blittable, and a message is read only when a call fails.
//
// Exceptions: ObjectDisposedException after Dispose;
// ArgumentOutOfRangeException for a position off the terrain (its message
// gives the world bounds) or a player index out of range; ArgumentException
// for buffers of the wrong length; FormatException for a file that is not
// a store or a corrupt one (its byte offset in the message);
// FileNotFoundException / IOException when the file cannot be read;
// InvalidOperationException for a store baked without --engine.
//
// Not thread-safe: use each Store and InterestManager from one thread at
// a time (the C functions are safe from many threads, but each object has
// one error buffer); open a Store per thread to query from several.
using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Frontiersets
{
    // The C library's calls with blittable arguments only: the error
    // buffer is an IntPtr to 256 unmanaged bytes (fs_error).
    static class Blittable
    {
        const string Lib = "frontiersets";

        [DllImport(Lib, EntryPoint = "fs_open")]
        internal static extern int Open(byte[] pathUtf8, out long store, IntPtr err);

        [DllImport(Lib, EntryPoint = "fs_close")]
        internal static extern int Close(long store, IntPtr err);

        [DllImport(Lib, EntryPoint = "fs_info_get")]
        internal static extern int GetInfo(long store, out Native.Info info, IntPtr err);

        [DllImport(Lib, EntryPoint = "fs_world_to_position")]
        internal static extern int WorldToPosition(long store, double a, double b, out double x, out double y, IntPtr err);

        [DllImport(Lib, EntryPoint = "fs_cell_to_world")]
        internal static extern int CellToWorld(long store, int col, int row, out double a, out double b, IntPtr err);

        [DllImport(Lib, EntryPoint = "fs_interest_new")]
        internal static extern int InterestNew(long store, int players, out long manager, IntPtr err);

        [DllImport(Lib, EntryPoint = "fs_interest_tick_world")]
        internal static extern int InterestTickWorld(long manager, double[] world, int players, out Native.TickResult res, IntPtr err);

        [DllImport(Lib, EntryPoint = "fs_interest_sends_to")]
        internal static extern int InterestSendsTo(long manager, int player, int[] to, int cap, out int n, IntPtr err);

        [DllImport(Lib, EntryPoint = "fs_interest_free")]
        internal static extern int InterestFree(long manager, IntPtr err);
    }

    // The unmanaged fs_error of one object, and the exception of a code.
    sealed class ErrorBuffer : IDisposable
    {
        internal const int Size = 256;
        internal IntPtr Ptr = Marshal.AllocHGlobal(Size);

        internal ErrorBuffer() { Marshal.WriteByte(Ptr, 0); }

        internal string Message()
        {
            if (Ptr == IntPtr.Zero) return "";
            var b = new byte[Size];
            Marshal.Copy(Ptr, b, 0, Size);
            int n = Array.IndexOf(b, (byte)0);
            return System.Text.Encoding.UTF8.GetString(b, 0, n < 0 ? Size : n);
        }

        // Throw turns a failed call's code into .NET's exception; what
        // names the argument or the file.
        internal void Throw(int rc, string what)
        {
            string m = Message();
            switch (rc)
            {
                case 1: throw new ArgumentException(m, what);              // FS_EINVAL
                case 2: throw new ObjectDisposedException(what, m);        // FS_EHANDLE
                case 3: throw new ArgumentOutOfRangeException(what, m);    // FS_ERANGE
                case 4:                                                      // FS_EIO
                    if (m.Contains("no such file")) throw new FileNotFoundException(m, what);
                    throw new IOException(m);
                case 5: throw new FormatException(m);                      // FS_EFORMAT
                case 6: throw new ArgumentException(m, what);              // FS_ESPACE
                case 7: throw new InvalidOperationException(m);            // FS_ENOGEO
                default: throw new InvalidOperationException("frontiersets: " + m);
            }
        }

        public void Dispose()
        {
            if (Ptr != IntPtr.Zero) Marshal.FreeHGlobal(Ptr);
            Ptr = IntPtr.Zero;
        }
    }

    // NativeHandle owns a store or manager handle of the C library;
    // releasing it closes it (fs_close, fs_interest_free).
    sealed class NativeHandle : SafeHandle
    {
        readonly Func<long, IntPtr, int> release;
        internal NativeHandle(Func<long, IntPtr, int> release) : base(IntPtr.Zero, true) { this.release = release; }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        internal long Id { get { return handle.ToInt64(); } }
        internal void Set(long id) { SetHandle(new IntPtr(id)); }
        protected override bool ReleaseHandle() { return release(handle.ToInt64(), IntPtr.Zero) == 0; }
    }

    // Store is an open PVS store (pvsbake bake; --engine unity for world
    // positions). Width and Height are its grid in cells; CellXM and
    // CellYM the cell size in metres; WorldMin and WorldMax the (x, z)
    // bounds, in metres, of positions on its terrain (the corner cells'
    // centres), when it has an engine frame.
    public sealed class Store : IDisposable
    {
        readonly NativeHandle h = new NativeHandle(Blittable.Close);
        readonly ErrorBuffer err = new ErrorBuffer();
        public readonly int Width, Height;
        public readonly double CellXM, CellYM;
        public readonly bool HasWorld;
        public readonly float WorldMinX, WorldMinZ, WorldMaxX, WorldMaxZ;

        // Open opens the store file at path. FileNotFoundException,
        // IOException, FormatException (not a store, or corrupt).
        public Store(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            var p = System.Text.Encoding.UTF8.GetBytes(path + "\0");
            long id;
            int rc = Blittable.Open(p, out id, err.Ptr);
            if (rc != 0)
            {
                try { err.Throw(rc, path); } finally { err.Dispose(); }
            }
            h.Set(id);
            Native.Info info;
            Check(Blittable.GetInfo(id, out info, err.Ptr), path);
            Width = info.Width;
            Height = info.Height;
            CellXM = info.CellXM;
            CellYM = info.CellYM;
            double a0, b0, a1, b1;
            if (Blittable.CellToWorld(id, 0, 0, out a0, out b0, err.Ptr) == 0 &&
                Blittable.CellToWorld(id, Width - 1, Height - 1, out a1, out b1, err.Ptr) == 0)
            {
                HasWorld = true;
                WorldMinX = (float)Math.Min(a0, a1);
                WorldMaxX = (float)Math.Max(a0, a1);
                WorldMinZ = (float)Math.Min(b0, b1);
                WorldMaxZ = (float)Math.Max(b0, b1);
            }
        }

        internal long Id
        {
            get
            {
                if (h.IsClosed) throw new ObjectDisposedException("Store");
                return h.Id;
            }
        }

        internal void Check(int rc, string what)
        {
            if (rc != 0) err.Throw(rc, what);
        }

        // WorldToPosition converts a world position (x, z) in metres to
        // fractional cells (column, row). ArgumentOutOfRangeException off
        // the terrain (the message gives its bounds).
        public void WorldToPosition(float x, float z, out double col, out double row)
        {
            Check(Blittable.WorldToPosition(Id, x, z, out col, out row, err.Ptr), "position");
        }

        // Dispose closes the store; managers on it must be disposed first
        // (InvalidOperationException otherwise, the store left open).
        public void Dispose()
        {
            if (h.IsClosed) return;
            int rc = Blittable.Close(h.Id, err.Ptr);
            if (rc == 1) throw new InvalidOperationException(err.Message()); // managers still open
            h.SetHandleAsInvalid();
            h.Dispose();
            err.Dispose();
        }
    }

    // TickResult is what one tick decided: players whose cell left their
    // side, pairs exchanging updates after it, packets on the wire.
    public struct TickResult
    {
        public int Exits, Open;
        public long Packets;
    }

    // InterestManager is the joint frontier of Players players on a store
    // (interest management for a whole match): each tick takes every
    // player's world position and decides which player sends its update
    // to which. Nothing is allocated per Tick or SendsTo call.
    public sealed class InterestManager : IDisposable
    {
        readonly Store store;
        readonly NativeHandle h = new NativeHandle(Blittable.InterestFree);
        readonly ErrorBuffer err = new ErrorBuffer();
        readonly double[] world;
        public readonly int Players;

        public InterestManager(Store store, int players)
        {
            if (store == null) throw new ArgumentNullException("store");
            if (players < 1) throw new ArgumentOutOfRangeException("players", "want at least one player");
            long id;
            int rc = Blittable.InterestNew(store.Id, players, out id, err.Ptr);
            if (rc != 0)
            {
                try { err.Throw(rc, "players"); } finally { err.Dispose(); }
            }
            h.Set(id);
            this.store = store;
            Players = players;
            world = new double[2 * players];
        }

        long Id
        {
            get
            {
                if (h.IsClosed) throw new ObjectDisposedException("InterestManager");
                return h.Id;
            }
        }

        // Tick places player i at world position (xz[2i], xz[2i+1]) —
        // Unity's x and z in metres — and decides the tick.
        // ArgumentException when xz does not hold 2·Players values;
        // ArgumentOutOfRangeException for a player off the terrain or at
        // NaN (the message names the player and the bounds).
        public TickResult Tick(float[] xz)
        {
            long id = Id;
            if (xz == null || xz.Length != world.Length)
                throw new ArgumentException("want 2 values (x, z) for each of the " + Players + " players", "xz");
            for (int i = 0; i < world.Length; i++) world[i] = xz[i];
            Native.TickResult r;
            int rc = Blittable.InterestTickWorld(id, world, Players, out r, err.Ptr);
            if (rc != 0) err.Throw(rc, "xz");
            TickResult t;
            t.Exits = r.Exits;
            t.Open = r.Open;
            t.Packets = r.Packets;
            return t;
        }

        // SendsTo writes into to the players that player sends its update
        // to this tick, in increasing order, and returns their count. to
        // must hold Players values (ArgumentException otherwise).
        public int SendsTo(int player, int[] to)
        {
            long id = Id;
            if (player < 0 || player >= Players) throw new ArgumentOutOfRangeException("player", "player " + player + " of " + Players);
            if (to == null || to.Length < Players) throw new ArgumentException("want a buffer of " + Players + " players", "to");
            int n;
            int rc = Blittable.InterestSendsTo(id, player, to, to.Length, out n, err.Ptr);
            if (rc != 0) err.Throw(rc, "player");
            return n;
        }

        public void Dispose()
        {
            if (h.IsClosed) return;
            h.Dispose();
            err.Dispose();
            GC.KeepAlive(store);
        }
    }
}
