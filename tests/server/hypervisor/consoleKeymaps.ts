import type { KeyboardLayout } from '../../../src/domain/keyboardLayouts';

// The Linux console keymaps of the keyboard layouts, in busybox's binary format (loadkmap), gzipped
// and in base64: what Debian's console-setup loads on a guest, for the tiny image, which has no
// console-setup. Made from xkeyboard-config's XKB layouts (Debian xkb-data 2.35.1; ours are us, gb, de, fr, es, it and se) with console-setup
// 1.221's ckbcomp and kbd 2.5.1's loadkeys:
//   ckbcomp <xkb layout> | sed 's/\btrademark\b/U+2122/g' | loadkeys -u -b - | gzip -9n | base64 -w0
// (loadkeys does not know the keysym name `trademark`). A binary keymap has no compose table: dead
// keys compose with the kernel's default one.

export const CONSOLE_KEYMAPS: Record<KeyboardLayout, string> = {
  us:
    'H4sIAAAAAAACA+3X51IcSRAE4KpueiebgmXxIGARIC9kkDcIee+9O3nvvUent7nnu0e4BlbIsAgQJyQicvixDDERG0l2' +
    'V893/cGtd4+uPdXffMnvvlyb9MkqWS1rZK2sk/WyQTbKSlkmW+STRHlmb+yWPbeX9s5e2T17Yk/tolwSdS67Zi/spt22' +
    'O3bX7tsDe2ibZaFcFcn+kvf21m7Ya7tuj+2R9cpyWZH+XuV9NlcyJym5U68VGjSnmUKjwkWXefjozVf44HO+0qt33nvx' +
    'BZ9z4vqlUk3Fff2T9y6r9uJ8FlyD+lyLas7lmlVyrdqoTd893ZHuC37kd5/5bOizTbpkm/TIPJkvl2WBLJFFsliuyNKh' +
    '/DhuZ223nbBTdt5O2347asfsg3wczr/dTtou22N7bZ8dsIN2yDZJt/ydcg7KBTtnO+2M7bAjdtj6ZUC2fpW/Sqs1rzVa' +
    '0Fqt03otamfK7yfIPyBztWuC/OY+5690k80/c/03xVL+UB3yoSYUQm2oC/WhITSGhuhcbayL9bE55mNNLMSWaLEqVsfK' +
    'OJJ/UJpCc/g2UWtaNI2xXWZX/y2hNcwJbaE9dIRi6AxzQ1eYeP3/82936Anl+p9e/r40Bkb6L47235n6R+q/VpolSJ00' +
    'SKs0pvsaKUibdEi1uEylXiokJ1l6slJMqmSo/3Rl7TJHWsRLU/qCfPpf9UrefSrlTx+uW3t0ns7XBbpQF+liXaJL0/qv' +
    'mCB/u/TqMp1O/uDK9y+l/ouj/Xem/qeef6j/Ypn8/d/lX64rdKX26SpdrWt0ra7T9ZOYfwOyQTf+gvwz33+5/f+j/FVu' +
    'pP+x+//H+avcn9n/z+3/dpnu/i+bH31YhdVYg7VYh/XYgI1YiWXYgk+IeIY3uIXneIl3eIV7eIKnuIhLqEaa/3iBm7iN' +
    'O7iL+3iAh9iMhbiKNP/xHm9xA69xHY/xCL1YjhUozT+k8z9ocMGHihBCLmQBIab8aaRGxBhT/hhiLqb80UUfpTT/+1EZ' +
    'rGz+XOn8q3MtWnC1bkrzD13Yhh7Mw3xcxgIswSIsxhUsHc5/HGexGydwCudxGvtxFMfwAR+H82/HSezCHuzFPhzAQRzC' +
    'JnTj75RzEBdwDjtxBjtwBIfRjwFsRen8w3jnX5zg/BvAeOdfbjrvP7+j/596/xvEeO9/08s/c/3/mfn7IKX+i6P9d6b+' +
    'kfLXohkBdWhAKxrTfQ0KaEPHcH5FPSqQQ5aerISharj/NAyzdsxBCzya4JBPz/Yizb9Sfhl3/084/8fd/+2YxvxP/Uup' +
    '/+Jo/52p/6nnH+q/WCZ//3f5p3r+jb//f5x/svN/xvuf4vof7X+c9T/b+v+5/T/1/JN9/6P/6X/6n/6n/+l/+p/+p//p' +
    'f/qf/qf/6X/6n/6n/+l/+p/+p//pf/qf/qf/6X/6n/6n/+l/+p/+p//pf/qf/qf/6X/6n/6n/+l/+p/+p//pf/p/Nvu/' +
    'nH8++2+sf77471v/zF7/l/PvZ/+N9e8X/33r39nr//+3/9nn/1/TP/1P/9P/9D/9T//T//Q//U//0//0P/1P/9P/9D/9' +
    'T//T//Q//U//0//0P/1P/9P/9D/9T//T//Q//U//0//0P/1P/9P/9D/9T//T//Q//U//0//0P/1P/9P/9D/9T//T//Q/' +
    '/U//0//0/9j8/wHTfaDCB4EAAA==',
  uk:
    'H4sIAAAAAAACA+3YyW8cRRQG8FfdXdNfzRvb430bj2MncRY7i7M6jiHOvu8LJHEWkjgLIRB2Qhz8L7BcERJEgBIixCKC' +
    '2G+RuM2c4AQ3jqhHOcAJUT0eZ+zY4yUDgkhv+mCP1ZL16atX1b8+dbH/yqUnLqv/+EP/9cdppE5aQktpGS2nFbSSumgV' +
    'LaYF9AgNkqFn+WXu5+f4Bb7CL/IFfoYv81E6Rspx/Cf4eT7DZ/kcn+cn+SI/xatpDp0k8mfSq/wKn+aX+BQ/zZe4gxbS' +
    'Ivv3mOv6MygSJZvcUa7ylFYR5Ssoo+AYx3fhGpddz9VuxI26ynVc1yU37kYccvooqliRM/IqdR2/xCVH+dqpUm6kTqmI' +
    'E6lVFKlX1armvrub7Pe4O/S767t++LORWqiVrgezaDYdpzaaT3NpHp2g9jA/9vJjvJH38QE+zAd5K+/mPXyVrmXzr+X9' +
    'vIE38Wbewtt4O+/gbuqlWwH5r9ERfpzX8yFex7t4J/fQo7RmRP6YKlGlqkzFVbmqUJUqqZptfneS/AM0Q7VMkp+d4fxR' +
    'Z6r5vwo+Cz4PbqW+C74PrlLY7jXqI+2F/ffSYKafbwfnMq+n30q/mf6T/2LPc70w/2/8KwdcntmemZMp97oy6zLKc7wB' +
    'm5O8j4JvgveCZCqRakp9wa2pL4O4R36NyeXXJbpUl+m4LtcVulJX6WpdZRyn3FSYSlNrSk2ZiZs6wyZmSkzUDOev0bV6' +
    'dKJ6u2iqTYKK6f/d4Gj6evBt0Jc+lj6ebk1/GnwS/BDEwvy4cffDYCN/HJzNvB+8ke7M/My/sPEi2fx3+J3fU3yTt2Xa' +
    'MhVeG63NRD3O5ve9sPEbQUOqLlWf+pp/Cv4I4OX7r9P1ukE36oRu0kndrGfoFj35+v8gaNUz9Xj9F5c/P/9JarRXk72a' +
    '7fzD9l9OtaSpgqqonqrt9zKKZ+8oIcdXVEkeRWzdoCgxxWj10J7iJ6mB6silGvsPSu2sdFCpM5hb/2Tzt6qZapaardrU' +
    'HDVXzVPzVbtd/94k+RPUoRaoYvJrZ+L5T96b/2Y7/9PP310gf899+ReqRWqx6lRL1FK1TC1XK9TKKex/CepSq/6F/CPn' +
    'f7j/hJ3/MD9NK384/4ns/I/O35oqdeJePv948z9R/pgzlH/s/E+cP+ZMJX9+/vPrP0GxB8gf9YgS4/Qfzv/I/h9s/hNU' +
    '7PyPmx+dWIKlWIblWIGV6MIqLMYCPIJBGDyLl9GP5/ACruBFXMAzuIyjOIYS2PMfz+MMzuIczuNJXMRTWI05OAl7/uNV' +
    'vILTeAmn8DQuoQMLsQi5/Q/2/NdKO9rVntY6on0NbWx+u6UaGGNsfqNNxNj8xjGuodz+34eo5nHzR3LnX4VTp+JOuTOt' +
    '/Q8taLX5Z2E2jqMN8zEX83AC7dn8e/EYNmIfDuAwDmIrdmMPruJaNv9a7McGbMJmbME2bMcOdKM3m/81HMHjWI9DWIdd' +
    '2IkePIo1yJ1/KHT+mcnOPxQ6/yLFPP+M6v9qtt1r6Mv13zvl/tty/Q9k+w8TT9D/Az3/DaDQ819x+cP+7f6f7T+fvz2X' +
    'f6r9t+X6H8j2H+Yf2///M3++/yQa7dVkr2bbP2z+ctRCowJVqEe1/V6GePaOML9CJTxE4Ns7o2DEbP8UXn4SDaiDixo4' +
    'KLX3dsCef7n8VHD+J93/C85/AkXs/yPmP3lv/ptt/9PP310gf899+ad7/uX2fxQ8//DP7P/5/hO5/mna/Sem0v801/+9' +
    '/gus/+L7H5r/kfnbHyB/d4H8PUXmH+5/uvmn9vwn/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/' +
    '8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4/+H2/3j+Hfb/WP/m/T/avw+v/8d7' +
    '/zHs/7HvP/L+H/3+42H2/37b/23r3yH/h/4d9v8d23+K45nQv6H/1xbw/9t3H17//2j932/9fy7r/60cvv8Y9v/Q+4+b' +
    'HL7/CP2/Tvwv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv' +
    '/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i/+L6P9v+3icGgeBAAA=',
  de:
    'H4sIAAAAAAACA+3Y128cVRQG8HNn5u6cu2e9XvfuxE7iNKfYTrHjNDu9F6cXojQ7vfeC/wXKK0KCgKJABAEEEU28oEi8' +
    'zb4ADxZ5QXlEs4oEPFiIu+tdjzfZccmCgs3ZebDXWmn1+dzv3vnNoZNHr58+eE685Be87JdRAQ3QCE0wB+bCPJgPzdAC' +
    's+ExCasbFJynq3SULtAlukGX6TidpXPUS9NBGIZ9kC7SEeqkLjpGJ+gknaLf6VcyLLAnwHW6RofpCh2iM3Sa6mEmzACw' +
    'Q6Zpj4dAEHRyQ5jCElIEhC1QKIGGMmwTTWWSaZnSDJhBU5iGaZpg5poBA4yFEBQkwBh4hU3DzjHBELY0CoUZKBUiYARK' +
    'BATKRJEofubTVfp9xOz73bRNO/6zAmqgFu66E2ES1MEsmAJTYREsAYjnxy20k1bQVtpGe2g7raFNtJl6aFoifxt10HJa' +
    'SatoNa2ldbSefqTv6YEL9mTYTbtoGe2gdtpIG6gVFsCBAflDIkeERa6IiDyRLwpEtRin85tD5F8M40XNEPnJSOUPGsPN' +
    '/6X7qfuZ+437rXvfvQl7YT/chn0gE/NfCt2x+84Xblfsteib0Teif9JfZFmvJvI/oe6YS3mxdbHJsYjVHGuPBS3DanTA' +
    'LnO+dj9033WrnUqnyvmcHrp1ToH+e7FK5pc5MixzZUTmyXxZIAtlkSxUhpGn8lWBKlFhlasiqlSRCqkcFVR9+W9BsSyR' +
    '6YnK9KIpUpWQzfzfcfdG77jvufui+6OvRGujn7gP3O/cUGL+957ede87H7mdsffd16MNsZ/pF1LWx248/yN6+zeHPqC1' +
    'sboYWnXQpv8LZDXpnLa1wGlx7rnlTqlT5nxFP7l/uIWON/9SWSbLZYWslFWyWo6T42WNHHr934JaOUFmmn92+Qf2v0Jf' +
    'VfrqBmGhnn8elICEfCiEcijS73MhAr1UDTlg2AIKwIIA2IAQBIIQeP0vg1IwoVh/QVivlXoIG+OS6x90/loxQUwUk0Sd' +
    'mCymiKlimpiu1781RP5KqBczRDb5pTHc/nfr/vvlj/c/c36v/+n5W5/JP1PMErNFg2gUTWKOmCvmifnD2P8WQ7No+Rfy' +
    'D+x/av6Vuv/x/JAhv2X5zd/rf3r+h27YKHC8/Jn6P1j+kNE3/+f7P3j+kDGc/AP77+UP+eZXvvm9/qfnj/d/4PxfrP+V' +
    'Wfc/Y35swEZswjk4F+fhfGzGFpyNS1Cf/6jwPF7Fo3gBL+ENvIzH8SyeQ33+Yw7q8x8v4hHsxC48hifwJJ7C/v7jdbyG' +
    'h/EKHsIzeBrrcSbOwOT+h/r8l0Ia0pSWlDIgbYlS6fx6S1WolNL5lVQBpfMrQ5kKkvv/QgxKypg/kDz/8o1SETHyjBHt' +
    'f1iDtTr/RJyEdTgLp+BUXKTzQyL/FtyJK3ArbsM9uB3X4CbcjLr/ifxt2IHLcSWuwtW4FtfheuzvP+7GXbgMd2A7bsQN' +
    '2IoL8AAmzz/0O//UEOffYvQ7/wLZ3P+kzf8m7sX9eBv3oUzkX5ph/vr8zzD/Oj3/VP+HnP8L3f/dQr/7v+zyx+d/x+2b' +
    'v5c/lMz//PxVMn/6/Ov0/FP995v/fzP/wPlX6KtKX926/6jz52EJSszHQizHIv0+FyO6/9WJ/AIL0MIA2ogYRMLQgP6X' +
    'YSmaWIwGhvVn61Gff8n84Nv/Ifd/3/5XYhb7f8b+d+v+++VP9f/5/F7/0/O3PpN/pOeff/8Hzz/y/T81/0rd/3h+yJBf' +
    'n/8++b3+DzH/Ea7//vn7rP/s55/qv5c/5Jtf+eb3+j/4/F+s/yPPP7z7P/Y/+5/9z/5n/7P/2f/sf/Y/+5/9z/5n/7P/' +
    '2f/sf/Y/+5/9z/5n/7P/2f/sf/Y/+5/9z/5n/7P/2f/sf/Y/+5/9z/5n/7P/2f/sf/Y/+5/9z/5n/7P/2f+j0/8dSf9n' +
    '9u/0Qfzbd/+f7t/R6//Mzz+mDfL8o+/+P/35x2j2fwfF/d+Z9H/cvyn/P9LzdygSi/s37v82H/+/9XT0+v+HpP+7Ev5f' +
    'Q/HnHyn/P6HH5Gr/x59/xP3f/j/xf4+v/73+j2X/9/r63+s/+5/9P1b93+Pr//7+j2n/9/r6v7//7H/2/5j1f4+v/73+' +
    'j2X/9/r63+s/+5/9z/5n/7P/2f/sf/Y/+5/9z/5n/7P/2f/sf/Y/+5/9z/5n/7P/2f/sf/Y/+5/9z/5n/7P/2f/sf/Y/' +
    '+5/9z/5n/7P/2f/sf/Y/+5/9z/5n/7P/2f/sf/Y/+5/9/0/M/29pa88SB4EAAA==',
  fr:
    'H4sIAAAAAAACA+3YyW8bVRwH8N+bmef5Pf+cxM6+OEmzOd3TdE3bNE3Sfd/3fUu6t3RfQvsvsFwrpLYsaqlQQSqocIBT' +
    'oTf7BL0ApwIXNFYO0AvijWM7S+04iYVK4ec5JBPZir7+zfe9+czBE0eunjpwVrziF7zql1EBIfiNaqERxsMU+JX2wS/0' +
    'M02ABXATFByga3SEztEFukoX6RidobNkWPUgDMN+g87TYeqibjpKx+kEnaRT9II+c8CeCJfpCh2iS3SQTtNkmA/zoAbA' +
    '9pmmPQ48XtDJDWEKS0jhEbZAoQQayrBNNJVJpmVK02N6TWEapmmC6Tc9Bhit4BUkwBh45JqGnWOCIWxpFArTUyqEx/CU' +
    'CPCUiSJRPOTdlfrcb/b9btqm7f6sgGaYDjNgJsyC2TAHWmAuTIOHziQ3P3bQTlpCG2kz7aAttILW0XqyrLuOm38DbaLF' +
    'tJSW0XJaSatoNa2hBrihcz6ibbSdFtFW6qS1tBCmQhN85PTn94kckSvyhF8ERL4oEFWiWuc3M+Rvg3GiJkN+MhL5vcZI' +
    '8z92bkAdXIdd0AP7YTfshXbYA2/G5v+cPnYehD93uqNvRd6NvBP5k/7S+d+P5W+Hn8ihQHRVtDEasFqindFH+tp4oHOC' +
    '1Rn9yrnjVIWD4cqwsGrDXzh+C+xiFc8vc2SuzJN+GZD5skAWyiJZqAwjoPJVgSpRuSpP+VWpIuVTOcqr+vL3QLEskYMT' +
    'lemLpkgFIZv533Z2Re469bA7sieyN1Ib+dR56Hzt+Cx3/k+oFe44nzhd0Q+ctyPN0R/oR1KWx3Lz3+t97/cw3aeV0VA0' +
    '3wpBR/RLolh+2+qItsE9pzxcGi4Le63vnT8ctPrnXyrLZLmskEFZKatktRwna2Tm6/9Dp1bWyVTzzy5/CKqgFir0EdQL' +
    'QrU+A6jUB+r5CygHCflQCGVQpM/zwA9u/3PAsANQABZ49LgRvEDg06vCC9Kf1v0vgVIwoVj/g1x9HeUa/f0Hnb9W1Il6' +
    '0SBColGMFxPERDFJX/9WhvxBmCymiGzySyNz/6uT/U+X3+1/uvwN7ren+z80f3//3fxTRZOYJprFdDFDzBSzxGwxZwTr' +
    'Xxu0iLn/QP7HTpXuf2L+wYzzd/vv5ocU+RP9H5i/v/+J/Kn6P1x+n9E3/5f7P3x+nzGS/Ld1/rvOyPO7/U+Xnyx3/rY1' +
    'dP79/Ycx9z8I2fY/ZX4M4XSsxUYcj1NwDu7DuTgNJ+ACvIkKD+A1PILn8AJexYt4DM/gWV3UesxBvf/jeTyMXdiNR/E4' +
    'nsCTeAob8Abq/uNlvIKH8BIexNM4GefjPKzB+PqHev+XQhrSlJaU0iNtiVLp/HpJVaiU0vmVVB6l8ytDmQri638reiWl' +
    'zO+J73/5RqnwGwFjVOsfNuv8M3AmzsLZOn9LPP+kWP4O3IlLcCNuxh24BVfgOlyPVjz/BtyEi3EpLsPluBJX4Wpck8y/' +
    'DbfjItyKnbgWF+JUbIrlj+1/mG7/Uxn2vzZMt/95srn/0fO/gXV4HXdhD+7H3bgX23EPvhmff+tL80/kbx80/1Bs/n39' +
    'd+ffNtz8x3T/14Pp7v+yy98cy1+fMn+Hzj90/rH+x/IPnH9owPxta5vOP3j+yf3/X5c/hFW6/xX6CCJgtT4DrNQH6vwC' +
    'y1FiPhZiGRbp8zz0J/sfwAK00IO2fqcXCX36rw3up/X8S7AUTSxGA3P196j3/+T8IW3/M67/afsfxCzW/yH9r471v1L3' +
    'P11+awz5mwblH+3+l77/w+cf6fpfpa//xPyDGeefyA8p8hvWiOY/yus/Of8013+28x9d/kT/Ie389f7/0vyT+/+Y+z/6' +
    '/CO7/2P/s//Z/+x/9j/7n/3P/mf/s//Z/+x/9j/7n/3P/mf/s//Z/+x/9j/7n/3P/mf/s//Z/+x/9j/7n/3P/mf/s//Z' +
    '/+x/9j/7n/3P/mf/s//Z/+x/9j/7n/3/Ovj/adL/32n/f0vfJP2fyr8J/6fy77O4/wf693X2f6rnHwn/p3r+0ef/W70D' +
    'n3+8zv5/Evd/V9z/rn/7/b+JwuSPuv51/d8RvdWbuP/v+I/4/3nc/90x/68g9/lHwv9Pe93nH/fJff7h+r9zgP87/6f+' +
    'f8b+j/Wf/c/+Z/+z/9n/7H/2P/uf/c/+Z/+z/9n/7H/2P/uf/c/+Z/+z/9n/7H/2P/uf/c/+Z/+z/9n/7H/2P/uf/c/+' +
    'Z/+z/9n/7H/2P/uf/c/+Z/+z/9n/7H/2P/uf/c/+Z/+z/9n/7H/2P/uf/c/+H8v8/wYTHQoUB4EAAA==',
  es:
    'H4sIAAAAAAACA+3YyW8URxQG8FfdXdNfzRvb493GYwM2mM3s+2bMvu97gCD2fd9X/wtZrlEkgpIIgqLkkCARRdxAuc2c' +
    'klNyC7eoWxySU5Tq8TgGM4M3IoL83Ad7pPZYn796VfPr/ScOXTu176x6y1/0tr+cOppMU2gqTaPpNINm0iyaTZNoFN0J' +
    '2snQOb7Ch/g8X+RrfImP8Rk+y+SNI+U4/j6+wAf5MB/ho3ycT/BJDll5j5j8Z3ydr/IBvsz7+TSf4haaQOOJ/ITr+sMo' +
    'Fieb3FGu8pRWMeUrKKPgGMd34RqXXc/VbsyNu8p1XNclN+nGHHLmUVyxIufFq9h1/CKXHOVrp0K5sRqlYk6sWlGsVlWq' +
    'qm5319vXSbfjZ9d3/eh7HQ2nRnoYjKCR1EwTaTSNofm0gB5H+bGRt/NS3sRbeCdv5ZW8njew443N5l/Im3kJL+PlvIJX' +
    '8Wpewxn2vPs2/1N+j3fwYt7Gi3gdr+W5NIf2vpA/oYpUsSpRSVWqylS5alBDbX63h/ytNEwN7yE/O535405v89+kNmqi' +
    '2/Rj8CC4QbtoD92i3aS9qP82ag8fpL8PjoQfZD7OfJT5i//m6I4o/+/8GwdcGq4OR4Wl3qxwUeh6N+xvkn+Lvgp+CD4L' +
    'GtKpdH36O25MPwySHvlVJpdfF+liXaKTulSX6XJdoSt1hXGcUlNmyk21KTYlJmlqDJuEKTJx05H/JlXpav1yolq7aCpN' +
    'igbS/51gV+au7X93Zk/m/Uxj5tvgm+BxkIjy497zL22Or4PD4efBh5nJ4S/8Kxsv5kX5n/Cnf6T5Pq8Km8Myr5kWhnGP' +
    'vSi/782jVroXDEnXpGvTj/jn4M8AXlf/NbpWD9F1OqXrdYMeqofp4brn9f9F0KibdL7+B5Y/ZbeBqdSQnf86e9Xbq93+' +
    'V2D7L6Vq0lRGFVRLlfZ1CSWzdxSR4ysqJ49i5BMoTkwJCjn7bn49DaEacqnK/oFiu1ZaqNgZmlv/ZPM3qiY1Qo1UzWqU' +
    'Gq3GqLFqnF3/Xg/5U9SixquB5NdOb+e/3c5/ofzR/OfPH81/lP8pv5x/brf8E9RENUlNVlPUVDVNTVcz1Mxe7H+tNEvN' +
    '/g/yR/032f6j+e/sP2XnP8pPferf9fL335gudpJeV/588/+6/Amno/9X5//1+RNOb/PfDRqy89+VP9GP/PEC+aP5f7H/' +
    '/s1/igY6/3nzYzKmYCqmYTpmYCZmYTYmYRTs+Q+Dc7iCQziPi7iGSziGMziLXRiHItjzHxdwEIdxBEdxHCdwEiHfwG7Y' +
    '/R/XcRUHcBn7cRqn0IIJGI/c/gd7/mulHe1qT2sd076GNja/3VINjDE2v9EmZmx+4xjXUG7/n4e45rz5Y7nzr8ypUUmn' +
    '1OnT/ofhaLT5R2AkmjERozEG87EAj7P5N2I7lmITtmAntmIl1mOD3ajGZvMvxGYswTIsxwqswmqsQTT/UX57/mMHFmMb' +
    'FmEd1mIu5mAvcucfCp1/pofzrxWFzr/YQD7/4Cba0ITb2f5v2Hb34JZt0Z7/Nn9b3v735Om/2fZvz/9c//PQ+rr++/X5' +
    '7yYKff57E/k7+u/Kn8jlf7X/zvwv999s+4+/lP/V/v+f+VMgu/4bsv3X2aveXu12/mHzl6IaGmWoQC0q7esSJLN3RPkV' +
    'yuEhBh9AHIyEnf/su/n1GIIauKiCg2J7bwvs+ZfLTwXnv8f9v+D8pzCA/T/v/Lfb+S+cf2yB/JkC+ed2y9/X86/w/L8+' +
    'f+/2/6j/pm79p+z8R/mpT/3b8793/fdx/f/bf4H1P7D+O/NH/XflT/Qjf9zrXf/9m/++5+/d5z/xv/hf/C/+F/+L/8X/' +
    '4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+' +
    'F/+L/8X/77b/8/m30//5/Nvh/+7+fXf9n+/5R6f/8z3/6PB/9+cf77L/N3Pk/8M5/0f+7fT/E9t/mpNh5N/I/wsL+P+T' +
    '5++u/3/K+f9I1v8rOXr+0en/jucf9zl6/hH5f9Gg939mkPs/zPn/mfhf/D8I/Z8Z5P4Pc/5/Jv4X/w9C/2cGuf9D8b/4' +
    'X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F' +
    '/+J/8b/4X/wv/hf/i//F/+J/8b/4/432/w9b7WJrB4EAAA==',
  it:
    'H4sIAAAAAAACA+3Y128cVRQG8HNn5u58d4/LutuxnWIndorTe3Oc3nsnvffeCcH/AuUVIQGCKEWIIkAQEHlKiMSDlxfI' +
    'C+SJIiE0Sx6AF8Sd8TrYydqOs4miKMfzkGw0UvT5m3PP/mb7gV3nDm07qp7yDz3tH6eSRtIoGk1jaCyNo/E0gSbSCKqn' +
    '37mZDB3jM7yLj/NJPseneB8f4aP8Kw8h5Tj+Nj7BO3k37+G9vJ8P8EH+k+/wRiL/H36Rz/IOPs3b+TAf4gYaRkPtv+e4' +
    'rt+XYnGyyR3lKk9pFVO+gjIKjnF8F65x2fVc7cbcuKtcx3VdchNuzCFnCsUVK3LaX3mu4+e65ChfO8XKjZUrFXNiZYpi' +
    'FapEld53d7X9nHBb/+76rh/+WUn9qIbeCfrTAKqj4TSQBtFUmkabyebHcl7Ls3kFr+L1vJrn81Jexr/x4Cj/dF7Js3gO' +
    'z+V5vIAX8iL+hT8IXrI5LwYv8DqeyWt4Bi/hxTyZJtGWdvlzVK7KU/kqoQpUoSpSvVUfm9/tJn8j9VX9usnPTlv+uPOw' +
    '+T8PPgo+Dr4MvgquBudpA22iC7SVXg7zUxM1p662fBrsSb2SfD35WvJv/pfDO8L8P/NPHHBBamGqPlXgTUjNSDVRLV0N' +
    'yCfvSnAteDuoaqluSfEnrLzPgphHfqlJ59e5Ok/n64Qu0IW6SBfrEl1sHKfAFJoiU2byTL5JmHLDJsfkmrhpzX8lKNVl' +
    'umOiCvvQlJgqyqb/t4K453obkhuTm5KbkzXJD4Mc7+vA8cL+L929aHO8H+xOvRu8mhyZ+oF/5PP29xPmv8Fv/tHCl3lB' +
    'qi5V6NXR9JT2jPeeze97U6iRLgXlLRUtSf6Cvw8876/g//7LdYXupSt1la7WvXUf3Vf3090//9eCGl2rM/WfXf72819p' +
    'r2p7NVNvgu2/gMpIUyEVUwWV2M/5lIjuyCXHV1REHsVs3aA4MeXY4+QOV0Xz34vKyaVS+x/k2d9VA+U5fdLPP9n8NapW' +
    '9VcDVJ2qVwPVIDVYDbHPv9ft/DeooSqb/Np52Pl/tPzh/FdF898x/+T78g9Tw9UINVKNUqPVGDVWjVPjH+L8a6QJauIT' +
    'yN9+/tv6p3R+6mH/tRTmJ69jfuXlOeH8t+XPNP9d5c9xOpv/rvPnOA+Tv/38Z5vfeGF+/7784fy37/9pzX/G/BiJURiN' +
    'MRiLcRiPCZiIEajHZjTD4BjOYBeO4yTO4RT24QiOYgOGIBd2/+MEdmI39mAv9uMADqIJtdiIaP/jLHbgNLbjMA6hAcMw' +
    'FOnzD3b/a6Ud7WpPax3TvoY2Nr89Ug2MMTa/0SZmbH7jGNdQ+vyfgrjmjPlj6f1X6JSrhFPg9Oj8Qz/U2Pz9MQB1GI6B' +
    'GISpmJbOvxxrMRsrsArrsRrzsRTLcB6Do/zTsRKzMAdzMQ8LsBCLEO1/RPsf6zATazADS7AYkzEJW5Def+hs/5lu9l8j' +
    'Ott/sWy+/3To/7xtdxMuYCtejvI3Zex/U4b+69r1T94UNHbV/6N9/0Nn3/+yyx/273qt/T+YP1P/FzL0X2f7D/OH/ftR' +
    '/gf7zy5/4xPK377/SntV26sZvQGbvwBl0ChEMSpQYj/nIxHdEeZXKIKHGHx7ZxyMHJDNXxXNfy+Uw0UpHOTZextg9186' +
    'P3U6/92d/53PfxWyOP8zzv+j5rf7P5r/jvkn35e/p/uv8/nvOn/Pz/+2/imdnx6pf7v/u+6/h8//vf47ef6z779t/h9P' +
    'ft/ruv/HPf9Z9S/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf' +
    '/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/j/mfX/t5H/M/n3m7T/H/Tvd3w98v9t7ujfZ9f/md5/3Er7/8H3Hzfv' +
    '+b/j+49n2f8rOfT/7rT/Q/+2+f+G7b+FE6nQv6H/p2f0f5LfuPvs+v9W2v97Iv/P5/D9R5v/W99/XObw/Ufo/xkZ/Z96' +
    'rvx/PfL/7efU/zfF/+J/8b+d/+fT/zfF/+J/8X+4/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf' +
    '/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xf9b9/wfI3HpgB4EA' +
    'AA==',
  nordic:
    'H4sIAAAAAAACA+3Y2W8VVRwH8N85M+fe77m/Lrd7S1ugFMq+lH2zsrixIxUFhRBR3BDFHVzSf8Hl1Rg3NGBjXKJG3F7E' +
    'xLfbF/UJX8RHMzcm6hPxzN2Gcu+0hWqU9nfnoZ2mSfvNb77nnM8cPnrk5LG7j6v/+EP/9Ue3Uy8tpWW0nFbQSlpFq2kN' +
    'LaH5pPwBsvQYP8NH+HF+kk/yU/wgP8rH+QL7vtI6eTc/wffyfXw/P8AP8VF+mP/gX/jdgJKz6Vk+wffw03yYH+FjvIAW' +
    '0UKiZJXnJadTIkUuuVae8pVRCZVUUFZBW5304FmPPd8zXsJLecrTnueRV+slNOn1lFKsSF961Xg6We2RVkmjG5WXaFUq' +
    'oRMtihJtqkk1X/bbne4+7eW/95JeMvzaTl00g7rp7WAW9dBimkNz6Tq6nijMj1v5Dr6R9/BtvJ/38hbexbv5HOtc/o3c' +
    'zzfwTXwz38JbeRtv5x/4W/7K5Z9Hd/I+3sy38ybeyTt4Ha2lQ5fkr1LVqkbVqrSqU/WqQU1V01x+b5T8fTRddY2Sn3Ux' +
    'f0qPNf8bwQZ6K5hJg5lTwXN0Fx2kF+gAfRiE899AA9nBzPvBRX5x6JWhl4f6sxfd9L1c/jP8Mwdcl92WnZ2t81dnN2X/' +
    '4l/509z83wu+CE4HUzMdmc7MJ2z8z4K0T8lmW8hvqk2NqTVpU2fqTYNpNE2m0WpdZ+ttg22xNbbWpm2rZVtlq23K5vM/' +
    'T82mxQxP1OYemibbQeOZ/+fBR8HHwZfBm8HBoT+D8D//IPgmGAzz4/Tv77qfvx+c51PBS0O92T3Z82x9zuU/y6/9luEz' +
    'vDXbk633e2hj9if+jr92+X8M1lMfnQ6mZFozbZmzXOXDXfn5vx4kUq2mzUwx7abDdJqpZpqZbrrM6M//O8EM020qzX98' +
    '+XvdMlDsf7u7Ot014PoPN/86aiFD9dRIbdTk7mspTWH/q0knFTWQTwlKEihFTFUU9X8KtZJHze4P1JDSC6hGTys8/+Tm' +
    'P0N1q5lqlupRs9UcNVfNU/Pd8++Pkr+DFqiFajz5jR5r/wdc/+Pyh/2vnD/q//D86y7Lv0gtVktUr1qqlqnlaoVaqVaN' +
    'Yf3ro9Vqzb+Q/42ASv0vzr/D9T/MTxXyh/2vnD/q//D8xq/RaT/KX6n/I+Wv0vn5l/d/5PxVeiz5P3f5i/2P8g/G5g/7' +
    'Xzl/1P/h+cP+Xzr/q+t/B423/xXzoxdLsQzLsQIrsQqrsQZLMB9u/4fFY3gGR/A4nsRJPIUH8SiOI9d/uP0fT+Be3If7' +
    '8QAewlE8jFL/8SxO4B48jcN4BMewAIuwEIX9D27/N8po4xnfGJMwSQNjXX63pFpYa11+a2zCuvxWW89SYf1fj5ThivkT' +
    'hf2vXreqtK7TV7T+oQsz0O3yz0IPFmMO5uI6XA/K5b8Vd+BG7MFt2I+92IJd2I1c/13+jejHDbgJN+MWbMU2bEep/7gT' +
    '+7AZt2MTdmIH1mEtDqGw/yFu/7Oj7H99iNv/EuM5/7j5b3Dzn5mb/3O4CwfxAg7A7f8u/4YK88/1v2z+PW7+pf5jPfpG' +
    'mv9Vnf+eR9z5b3z5u1zKbpc/nH+Uf7CQv3z+uf6Xzb/Hzb/Y/3z+8vn/P/P3gkr9b3dXp7sGXP/h8tehBQb1aEQbmtx9' +
    'LdKl/is0uGNNAkkAKTCqLun/FLTCQzM0alDt5u/2v0J+iu3/qOt/bP87MI71v2L/B1z/4/IX+1+eP+r/8PzrLst/pftf' +
    'fP9Hzj/W9Z9K/S/Ov8P1P8xPFfIX+1+eP+r/KPO/wue/NP+Y53+886dS/6P8g7H5i/0vzx/1f+T5X13/rzz/2M5/4n/x' +
    'v/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L/8X/4n/xv/hf/C/+F/+L' +
    '/8X/4n/xv/hf/C/+F/+L/69t/1f2rz+Cf/Pn/+H+vXb9X/n9hx7h/Uf+/D/8/ce17P9+Dv1/vuD/0L+R//s5w+ls6N/Q' +
    '/3n/lvv/1d+vXf9/X/D/xZz/t3D4/iPyf/j+4wyH7z9C/+fff0x8/5+L9X/U/4ns/wux/o/6Pzn9H/V/cvo/6v9E9v+5' +
    'WP+X+j+h/X8h1v+l/k9S/5f6P0n9X+z/xPb/uVj/R/2fyP6/EOv/qP+T0/9R/yen/6P+i//F/+J/8b/4X/wv/hf/i//F' +
    '/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv/hf/i//F/+J/8b/4X/wv' +
    '/hf//1Pz/xtSRTP8B4EAAA==',
};
