function write_text(filename, varargin)
% caffe.test.write_text(filename, line1, line2, ...)  (test helper)
%   Writes the lines, each followed by a newline, to filename.

fid = fopen(filename, 'w');
if fid < 0
  error('caffe:test', 'cannot write %s', filename);
end
fprintf(fid, '%s\n', varargin{:});
fclose(fid);
end
