import { openSignature, reasoningPartFrom, sealSignature } from './reasoning-signature';

describe('sealed reasoning signatures', () => {
  it('open to their maker and the original, whatever the original holds', () => {
    const original = 'EqQB:Cg/IYAh+IM==';
    expect(sealSignature('ant.eu-1', original)).toBe('gw1:ant.eu-1:EqQB:Cg/IYAh+IM==');
    expect(openSignature(sealSignature('ant.eu-1', original))).toEqual({
      providerId: 'ant.eu-1',
      signature: original,
    });
  });

  it.each(['EqQBCgIYAhIM', 'gw1:', 'gw1::abc', 'gw1:ant:', 'gw2:ant:abc'])(
    'do not open %j, which the gateway did not seal',
    (value) => {
      expect(openSignature(value)).toBeNull();
    },
  );

  it('make reasoning parts that name their maker, or carry only the text', () => {
    expect(reasoningPartFrom('thought', 'gw1:gem:c2ln')).toEqual({
      type: 'reasoning',
      text: 'thought',
      signature: 'c2ln',
      providerId: 'gem',
    });
    expect(reasoningPartFrom('', undefined, 'gw1:ant:ZGF0YQ')).toEqual({
      type: 'reasoning',
      text: '',
      encrypted: 'ZGF0YQ',
      providerId: 'ant',
    });
    expect(reasoningPartFrom('thought', 'raw-from-elsewhere')).toEqual({
      type: 'reasoning',
      text: 'thought',
    });
  });
});
